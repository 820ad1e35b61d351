// Passkeys (API.md section 11.3) through the real routes, answered by a software authenticator as a browser's
// would: several registered and named, one as the second step of a sign-in, one alone without a password (its
// challenge answered once), one for step-up, and removal with the password and a factor. The browser's own
// ceremony, with Chromium's virtual authenticator, is test/e2e/account.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { SoftAuthenticator } from '../support/webauthn.ts';
import { call, entries } from '../members/support.ts';
import { firstStep } from './factors-support.ts';

const clock = new TestClock();
let svc: TestService;
let m: TestMerchant;
let authenticator: SoftAuthenticator;
const ids: string[] = [];

const MINUTE = 60_000;

beforeAll(async () => {
  svc = await startTestService({ clock });
  m = await signupMerchant(svc.app);
  authenticator = new SoftAuthenticator(svc.config.publicUrl);
});
afterAll(async () => svc?.close());

async function register(name: string) {
  const options = await call(svc.app, m.auth, 'POST', '/auth/passkeys/options', {});
  expect(options.status).toBe(200);
  return call(svc.app, m.auth, 'POST', '/auth/passkeys', {
    name,
    credential: authenticator.create(options.body.data),
  });
}

/** Options, then the authenticator's assertion for them. */
async function assertion(url: string, auth?: Record<string, string>, body: object = {}) {
  const options = await call(svc.app, auth, 'POST', url, body);
  expect(options.status).toBe(200);
  return authenticator.get(options.body.data);
}

describe('passkeys', () => {
  it('registers several, named, with the relying party of SVC_PUBLIC_URL', async () => {
    const options = await call(svc.app, m.auth, 'POST', '/auth/passkeys/options', {});
    expect(options.body.data.rp).toEqual({ name: 'svc', id: new URL(svc.config.publicUrl).hostname });
    expect(options.body.data.user.name).toBe(m.email);
    for (const name of ['Laptop', 'Phone']) {
      const res = await register(name);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ id: expect.stringMatching(/^pk_/), name, last_used_at: null });
      ids.push(res.body.data.id as string);
    }
    const list = await call(svc.app, m.auth, 'GET', '/auth/passkeys');
    expect(list.body.data.items.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Phone']);
    const added = await entries(svc.app, m, 'member.passkey_added');
    expect(added.map((e) => e.metadata.name)).toEqual(['Phone', 'Laptop']);
  });

  it('refuses a registration whose challenge was not given, or was answered already', async () => {
    const options = await call(svc.app, m.auth, 'POST', '/auth/passkeys/options', {});
    const credential = authenticator.create(options.body.data);
    expect((await call(svc.app, m.auth, 'POST', '/auth/passkeys', { credential })).status).toBe(201);
    const again = authenticator.create(options.body.data);
    const replay = await call(svc.app, m.auth, 'POST', '/auth/passkeys', { credential: again });
    expect([replay.status, replay.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('is the second step of a sign-in, and asks the factor of a password sign-in', async () => {
    const { mfa_token, methods } = await firstStep(svc.app, m);
    expect(methods).toEqual(['passkey']);
    const passkey = await assertion('/auth/login/passkey/options', undefined, { mfa_token });
    const res = await call(svc.app, undefined, 'POST', '/auth/login/mfa', { mfa_token, passkey });
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(m.userId);
  });

  it('signs in alone, without a password, each challenge once', async () => {
    const passkey = await assertion('/auth/login/passkey/options');
    const res = await call(svc.app, undefined, 'POST', '/auth/login/passkey', { passkey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      token: expect.stringMatching(/^svc_mst_/),
      user: { id: m.userId },
    });
    const replay = await call(svc.app, undefined, 'POST', '/auth/login/passkey', { passkey });
    expect([replay.status, replay.body.error.code]).toEqual([401, 'invalid_credentials']);
    // An assertion by a credential the service never registered.
    const stranger = new SoftAuthenticator(svc.config.publicUrl);
    const options = await call(svc.app, undefined, 'POST', '/auth/login/passkey/options', {});
    stranger.create({ challenge: 'x', rp: {}, user: { id: 'eA' } });
    const unknown = await call(svc.app, undefined, 'POST', '/auth/login/passkey', {
      passkey: stranger.get(options.body.data),
    });
    expect(unknown.status).toBe(401);
    const list = await call(svc.app, m.auth, 'GET', '/auth/passkeys');
    expect(list.body.data.items[0].last_used_at).not.toBeNull();
  });

  it('steps up, for 10 minutes', async () => {
    const live = { ...m.auth, 'x-svc-mode': 'live' };
    clock.advance(11 * MINUTE);
    expect((await call(svc.app, live, 'POST', '/api-keys', {})).status).toBe(403);
    const passkey = await assertion('/auth/step-up/options', m.auth);
    const res = await call(svc.app, m.auth, 'POST', '/auth/step-up', { passkey });
    expect([res.status, res.body.data?.method]).toEqual([200, 'passkey']);
    expect((await call(svc.app, live, 'POST', '/api-keys', {})).status).toBe(201);
  });

  it('is removed with the password and a factor, and another user’s is not found', async () => {
    clock.advance(11 * MINUTE);
    const id = ids[0]!;
    const noFactor = await call(svc.app, m.auth, 'DELETE', `/auth/passkeys/${id}`, { password: m.password });
    expect(noFactor.status).toBe(400);
    const passkey = await assertion('/auth/step-up/options', m.auth);
    const wrong = await call(svc.app, m.auth, 'DELETE', `/auth/passkeys/${id}`, {
      password: 'wrong password',
      passkey,
    });
    expect(wrong.status).toBe(403);
    const passkey2 = await assertion('/auth/step-up/options', m.auth);
    const res = await call(svc.app, m.auth, 'DELETE', `/auth/passkeys/${id}`, {
      password: m.password,
      passkey: passkey2,
    });
    expect(res.status).toBe(204);
    const [removed] = await entries(svc.app, m, 'member.passkey_removed');
    expect(removed).toMatchObject({ entityId: m.userId, metadata: { passkey_id: id, name: 'Laptop' } });

    const other = await signupMerchant(svc.app);
    const theirs = await call(svc.app, other.auth, 'DELETE', `/auth/passkeys/${ids[1]}`, {
      password: other.password,
    });
    expect(theirs.status).toBe(404);
  });
});
