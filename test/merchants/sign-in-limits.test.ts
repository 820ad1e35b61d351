// Sign-in limits that an attacker cannot turn against the account's owner: failures count per account (with
// exponential back-off) and per address, a known address or a device that signed in before keeps a budget of
// its own, and /auth/login and the authorize page's sign-in form share one budget. The waits are the service
// clock's: a test waits one out by moving the clock, and the clock stands still in between, so a wait is in
// force for exactly as long as the test says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
const clock = new TestClock();
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_RATE_LIMIT: 'on' }, clock });
});
afterAll(async () => svc?.close());

const AUTHORIZE_LOGIN = '/api/public/v1/oauth/authorize/login';

async function login(
  m: Pick<TestMerchant, 'email'>,
  password: string,
  remoteAddress: string,
  cookie?: string,
) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login',
    remoteAddress,
    headers: cookie ? { cookie } : {},
    payload: { email: m.email, password },
  });
}

async function formLogin(m: Pick<TestMerchant, 'email'>, password: string, remoteAddress: string) {
  return svc.app.inject({
    method: 'POST',
    url: AUTHORIZE_LOGIN,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      email: m.email,
      password,
      return_to: '/api/public/v1/oauth/authorize?client_id=svc_ca_x',
    }).toString(),
  });
}

function deviceCookie(res: Awaited<ReturnType<typeof login>>): string {
  const cookie = res.cookies.find((c) => c.name === 'svc_device');
  expect(cookie?.httpOnly).toBe(true);
  return `svc_device=${cookie!.value}`;
}

/** Waits out a 429: moves the clock on by its Retry-After. */
const waitOut = (res: { headers: Record<string, unknown> }) =>
  clock.advance(Number(res.headers['retry-after']) * 1000);

/**
 * Fails `attempt` at least `min` times, waiting out each 429 once there were `min`, until a wait of at least
 * `seconds` is in force: the checks that follow run inside it. The statuses, in order.
 */
async function failUntilWait(attempt: () => ReturnType<typeof login>, min: number, seconds: number) {
  const statuses: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await attempt();
    statuses.push(res.statusCode);
    if (res.statusCode !== 429) continue;
    const wait = Number(res.headers['retry-after']);
    if (wait >= seconds && statuses.length >= min) return statuses;
    if (statuses.length >= min) waitOut(res);
  }
  throw new Error(`no wait of ${seconds} s: ${statuses.join(',')}`);
}

describe('an attacker guessing one account', () => {
  let victim: TestMerchant;
  let device: string;
  let foreignDevice: string;
  const HOME = '192.0.2.10';
  const ATTACKER = '198.51.100.66';

  beforeAll(async () => {
    victim = await signupMerchant(svc.app);
    const first = await login(victim, victim.password, HOME);
    expect(first.statusCode).toBe(200);
    device = deviceCookie(first);
    const other = await signupMerchant(svc.app);
    foreignDevice = deviceCookie(await login(other, other.password, '192.0.2.77'));
    const statuses = await failUntilWait(() => login(victim, 'wrong password!', ATTACKER), 25, 8);
    // The attacker is slowed down: past five failures the account answers 429 to new addresses.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.filter((s) => s === 401).length).toBeLessThan(12);
  }, 60_000);

  it('still slows down the right password from a new address without the device cookie', async () => {
    const res = await login(victim, victim.password, '203.0.113.200');
    expect(res.statusCode).toBe(429);
  });

  it('is answered 429 rate_limited with Retry-After', async () => {
    const res = await login(victim, 'wrong password!', ATTACKER);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('does not accept a forged or foreign device cookie', async () => {
    // One character of the signature changed (not the last: its low bits are padding that decoding drops).
    const at = device.length - 10;
    const forged = device.slice(0, at) + (device[at] === 'A' ? 'B' : 'A') + device.slice(at + 1);
    expect((await login(victim, victim.password, ATTACKER, forged)).statusCode).toBe(429);
    expect((await login(victim, victim.password, ATTACKER, foreignDevice)).statusCode).toBe(429);
  });

  it('does not lock out the right password from an address that signed in before', async () => {
    const res = await login(victim, victim.password, HOME);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.id).toBe(victim.userId);
  });

  it("does not lock out the owner's device at the attacker's address (one proxy or NAT for both)", async () => {
    const res = await login(victim, victim.password, ATTACKER, device);
    expect(res.statusCode).toBe(200);
    // The device's sign-in does not make the address known: the attacker there is still refused.
    expect((await login(victim, victim.password, ATTACKER)).statusCode).toBe(429);
  });
});

describe('the per-account budget', () => {
  it('backs off exponentially across addresses, and lets the right password in once the wait is over', async () => {
    const m = await signupMerchant(svc.app);
    const waits: number[] = [];
    let failures = 0;
    for (let i = 0; waits.length < 3 && i < 40; i++) {
      const res = await login(m, 'wrong password!', `203.0.113.${i + 1}`);
      if (res.statusCode === 401) failures++;
      else {
        expect(res.statusCode).toBe(429);
        waits.push(Number(res.headers['retry-after']));
        waitOut(res);
      }
    }
    expect(failures).toBeGreaterThanOrEqual(6);
    expect(failures).toBeLessThanOrEqual(9);
    // 1 s, 2 s, 4 s: five free failures, then one wait per failure, each twice the last.
    expect(waits[0]).toBe(1);
    expect(waits[1]).toBeGreaterThan(waits[0]!);
    expect(waits[2]).toBeGreaterThan(waits[1]!);
    expect(waits).toEqual([1, 2, 4]);
    expect(failures).toBe(8);
    // The wait in force refuses even the right password from a new address, a millisecond before its end
    // too; after it, it passes.
    await login(m, 'wrong password!', '203.0.113.99');
    const during = await login(m, m.password, '203.0.113.100');
    expect(during.statusCode).toBe(429);
    expect(during.headers['retry-after']).toBe('8');
    clock.advance(8000 - 1);
    expect((await login(m, m.password, '203.0.113.100')).statusCode).toBe(429);
    clock.advance(1);
    expect((await login(m, m.password, '203.0.113.100')).statusCode).toBe(200);
  });
});

describe('the two sign-in routes', () => {
  it('share one budget', async () => {
    const m = await signupMerchant(svc.app);
    const ADDRESS = '198.51.100.7';
    for (let i = 0; i < 6; i++) expect((await login(m, 'wrong password!', ADDRESS)).statusCode).toBe(401);
    // Six failures on /auth/login: the authorize page's form is limited at once, where a budget of its own
    // would allow six more.
    let formFailures = 0;
    let res = await formLogin(m, 'wrong password!', ADDRESS);
    while (res.statusCode === 401 && formFailures < 10) {
      formFailures++;
      res = await formLogin(m, 'wrong password!', ADDRESS);
    }
    expect(res.statusCode).toBe(429);
    expect(formFailures).toBeLessThanOrEqual(2);
    expect(formFailures).toBe(0);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Too many failed sign-in attempts');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // And the other way round: the form's failures count on /auth/login.
    expect((await login(m, 'wrong password!', ADDRESS)).statusCode).toBe(429);
  });

  it('both sign in with the right password', async () => {
    const m = await signupMerchant(svc.app);
    const res = await formLogin(m, m.password, '192.0.2.33');
    expect(res.statusCode).toBe(303);
    expect(res.cookies.map((c) => c.name).sort()).toEqual(['svc_device', 'svc_session']);
  });
});

describe('the per-address budget', () => {
  it('stops one address trying many accounts, but not a device that signed in before', async () => {
    const STUFFER = '198.51.100.200';
    const owner = await signupMerchant(svc.app);
    const device = deviceCookie(await login(owner, owner.password, STUFFER));
    let i = 0;
    const statuses = await failUntilWait(
      () => login({ email: `nobody-${i++}@example.com` }, 'wrong password!', STUFFER),
      22,
      4,
    );
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect((await login(owner, owner.password, STUFFER)).statusCode).toBe(429);
    expect((await login(owner, owner.password, STUFFER, device)).statusCode).toBe(200);
    // Another address is not affected.
    expect((await login({ email: 'nobody-x@example.com' }, 'wrong password!', '192.0.2.99')).statusCode).toBe(
      401,
    );
  }, 60_000);
});
