// Failed client authentications at the token and revocation endpoints are limited per client and per
// address, and only failures count: an attacker hammering a client_id with wrong secrets, from many
// addresses or from the app's own, gets 429s while the app's right secret keeps working. The waits are the
// service clock's, which stands still unless a test moves it: no wait runs out while a test counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { basic, createApp, exchange, getCode, type TestApp } from './helpers.ts';

let svc: TestService;
let client: TestApp;
let refreshToken: string;
const APP_HOME = '192.0.2.10';
const clock = new TestClock();

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_RATE_LIMIT: 'on' }, clock });
  const developer = await signupMerchant(svc.app, 'Developer');
  const merchant = await signupMerchant(svc.app, 'Shop');
  client = await createApp(svc.app, developer);
  const { code, verifier } = await getCode(svc.app, client, merchant);
  refreshToken = (await exchange(svc.app, client, code, verifier)).refresh_token;
});
afterAll(async () => svc?.close());

async function token(
  form: Record<string, string>,
  remoteAddress: string,
  headers: Record<string, string> = {},
) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/public/v1/oauth/token',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}

/** The app's own refresh, from `remoteAddress`: it must succeed, and rotates the refresh token. */
async function appRefreshes(remoteAddress: string): Promise<number> {
  const res = await token(
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    remoteAddress,
    basic(client),
  );
  if (res.statusCode === 200) refreshToken = res.json().refresh_token;
  return res.statusCode;
}

const wrongSecret = () => ({
  grant_type: 'refresh_token',
  refresh_token: 'svc_ort_whatever',
  client_id: client.client_id,
  client_secret: `svc_test_cs_${'x'.repeat(40)}`,
});

describe('an attacker with wrong secrets for one client_id', () => {
  const attempts: { status: number; error: string; retryAfter: string | undefined }[] = [];

  beforeAll(async () => {
    // 120 failures from 60 addresses: two each, under any per-address budget.
    for (let i = 0; i < 120; i++) {
      const res = await token(wrongSecret(), `198.51.100.${(i % 60) + 1}`);
      attempts.push({
        status: res.statusCode,
        error: res.json().error,
        retryAfter: res.headers['retry-after'],
      });
    }
  });

  it('is answered 401 invalid_client, then 429 rate_limited with Retry-After: limited per client_id', () => {
    expect(attempts.slice(0, 20).every((a) => a.status === 401 && a.error === 'invalid_client')).toBe(true);
    const limited = attempts.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(80);
    // 20 free failures; past them each failure answers 429 with a wait twice the last
    expect(attempts.filter((a) => a.status === 401)).toHaveLength(20);
    expect(limited.slice(0, 4).map((a) => a.retryAfter)).toEqual(['1', '2', '4', '8']);
    for (const a of limited) {
      expect(a.error).toBe('rate_limited');
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
  });

  it("does not block the app's refresh, from its own address or from the attacker's", async () => {
    expect(await appRefreshes(APP_HOME)).toBe(200);
    expect(await appRefreshes('198.51.100.1')).toBe(200);
  });

  it("does not block the app's revocations", async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      remoteAddress: '198.51.100.2',
      headers: basic(client),
      payload: { token: 'svc_oat_unknown' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('limits the wrong secret at the revocation endpoint too', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      remoteAddress: '198.51.100.3',
      payload: {
        token: 'svc_oat_unknown',
        client_id: client.client_id,
        client_secret: wrongSecret().client_secret,
      },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().error).toBe('rate_limited');
  });

  it('forgets a client_id after 10 minutes without a failure, and not a millisecond before', async () => {
    clock.advance(10 * 60_000 - 1);
    expect((await token(wrongSecret(), '198.51.100.61')).statusCode).toBe(429); // a failure: counted again
    clock.advance(10 * 60_000);
    expect((await token(wrongSecret(), '198.51.100.62')).statusCode).toBe(401);
  });
});

describe('one address failing for many client_ids', () => {
  it('is limited per address, while a right secret from that address still passes', async () => {
    const ADDRESS = '203.0.113.50';
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await token(
        { ...wrongSecret(), client_id: `svc_ca_${i.toString().padStart(24, '0')}` },
        ADDRESS,
      );
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 50).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(51)).toContain(429);
    expect(statuses.slice(51)).toEqual(Array(9).fill(429)); // the 51st started a wait, which holds
    expect(await appRefreshes(ADDRESS)).toBe(200);
    // Another address is not affected.
    const other = await token({ ...wrongSecret(), client_id: 'svc_ca_unknown' }, '203.0.113.51');
    expect(other.statusCode).toBe(401);
  });
});

describe('grant failures of an authenticated client', () => {
  it('are not counted: invalid_grant stays invalid_grant, and the app keeps working', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await token(
        { grant_type: 'refresh_token', refresh_token: `svc_ort_bad${i}` },
        APP_HOME,
        basic(client),
      );
      expect(res.json().error).toBe('invalid_grant');
    }
    expect(await appRefreshes(APP_HOME)).toBe(200);
  });
});
