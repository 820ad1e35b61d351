// Second factors (API.md section 11.3): TOTP enrolment and its sealed secret, the two-step sign-in (a stale or
// reused code refused), recovery codes once each, turning a factor off with the password and a factor,
// step-up before the sensitive actions (its 10-minute window moved by the test clock, never waited for), and a
// merchant requiring a factor of every member. Budgets and their audit across checks: factor-budget.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { addMember, call, entries, login } from '../members/support.ts';
import { authorizeUrl, createApp, pkce } from '../oauth/helpers.ts';
import { createWebhook } from '../webhooks/helpers.ts';
import { resetFactors } from '../../src/modules/identity/index.ts';
import { codeAt, enrolTotp, firstStep } from './factors-support.ts';

const clock = new TestClock();
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(async () => svc?.close());

const STEP = 30_000;
const MINUTE = 60_000;

/** A fresh code: the clock moves to the next 30-second step first, as a user waiting for the next code. */
function nextCode(secret: string): string {
  clock.advance(STEP);
  return codeAt(secret, clock.now());
}

describe('TOTP enrolment', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await signupMerchant(svc.app);
  });

  it('answers a secret and its otpauth URL, no-store, and changes nothing until confirmed', async () => {
    const res = await call(svc.app, m.auth, 'POST', '/auth/mfa/totp');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { secret, otpauth_url } = res.body.data as { secret: string; otpauth_url: string };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(secret);
    expect(url.searchParams.get('digits')).toBe('6');
    expect(url.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(url.pathname)).toContain(m.email);
    // Not on yet: the password alone still signs in.
    expect((await login(svc.app, m)).data.token).toMatch(/^svc_mst_/);
    // The secret is stored sealed under the master key, never in clear.
    const row = await svc.ctx.db
      .selectFrom('users')
      .select(['totp_pending_sealed', 'totp_sealed'])
      .where('id', '=', m.userId)
      .executeTakeFirstOrThrow();
    expect(row.totp_sealed).toBeNull();
    expect(row.totp_pending_sealed).toMatch(/^v2\./);
    expect(row.totp_pending_sealed).not.toContain(secret);
  });

  it('refuses a wrong code, then a right one turns TOTP on with 10 recovery codes shown once', async () => {
    const { secret } = (await call(svc.app, m.auth, 'POST', '/auth/mfa/totp')).body.data as {
      secret: string;
    };
    const wrong = await call(svc.app, m.auth, 'POST', '/auth/mfa/totp/confirm', {
      code: codeAt(secret, clock.now() - 3 * STEP),
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'validation_failed']);
    const res = await call(svc.app, m.auth, 'POST', '/auth/mfa/totp/confirm', {
      code: codeAt(secret, clock.now()),
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const codes = res.body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    // Stored hashed: no code appears in the table.
    const stored = await svc.ctx.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', m.userId)
      .execute();
    expect(stored).toHaveLength(10);
    for (const row of stored) expect(codes.map((c) => Buffer.from(c))).not.toContainEqual(row.code_hash);

    const factors = await call(svc.app, m.auth, 'GET', '/auth/mfa');
    expect(factors.body.data).toMatchObject({ totp: true, passkeys: 0, recovery_codes_left: 10 });
    const again = await call(svc.app, m.auth, 'POST', '/auth/mfa/totp');
    expect(again.status).toBe(409);
    const [entry] = await entries(svc.app, m, 'member.mfa_enabled');
    expect(entry).toMatchObject({ entityId: m.userId, metadata: { method: 'totp' } });
  });
});

describe('two-step sign-in', () => {
  let m: TestMerchant;
  let secret: string;
  let recoveryCodes: string[];
  beforeAll(async () => {
    m = await signupMerchant(svc.app);
    ({ secret, recoveryCodes } = await enrolTotp(svc.app, m.auth, clock));
  });

  const second = (mfaToken: string, factor: object) =>
    call(svc.app, undefined, 'POST', '/auth/login/mfa', { mfa_token: mfaToken, ...factor });

  it('answers mfa_required and no session to the password, then a session to a current code', async () => {
    const res = await call(svc.app, undefined, 'POST', '/auth/login', {
      email: m.email,
      password: m.password,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      mfa_required: true,
      mfa_token: expect.any(String),
      methods: ['totp', 'recovery_code'],
    });
    expect(res.headers['set-cookie']).toBeUndefined();
    const done = await second(res.body.data.mfa_token, { code: nextCode(secret) });
    expect(done.status).toBe(200);
    expect(done.body.data.token).toMatch(/^svc_mst_/);
    expect(done.body.data.user.id).toBe(m.userId);
    const me = await call(svc.app, { authorization: `Bearer ${done.body.data.token}` }, 'GET', '/me');
    expect(me.status).toBe(200);
  });

  it('refuses a stale code (two steps old), a reused one, and a forged or expired mfa_token', async () => {
    const { mfa_token } = await firstStep(svc.app, m);
    const code = nextCode(secret);
    const stale = await second(mfa_token, { code: codeAt(secret, clock.now() - 2 * STEP) });
    expect([stale.status, stale.body.error.code]).toEqual([401, 'invalid_credentials']);
    // One step either side is accepted (a code typed as it turned over).
    const late = await second(mfa_token, { code: codeAt(secret, clock.now() - STEP + 1) });
    expect(late.status).toBe(401); // that step was used by the previous test's sign-in
    expect((await second(mfa_token, { code })).status).toBe(200);
    // The same code again, even with a fresh first step, is refused: each step is accepted once.
    const replay = await second((await firstStep(svc.app, m)).mfa_token, { code });
    expect(replay.status).toBe(401);

    // Another user's id in a token signed for this one.
    const forged = await second(mfa_token.replace(m.userId, 'usr_someoneelse'), { code: nextCode(secret) });
    expect(forged.status).toBe(401);
    const expiring = await firstStep(svc.app, m);
    clock.advance(6 * MINUTE);
    const expired = await second(expiring.mfa_token, { code: codeAt(secret, clock.now()) });
    expect(expired.status).toBe(401);
  });

  it('takes each recovery code once, audited with how many remain', async () => {
    const [code] = recoveryCodes;
    const first = await second((await firstStep(svc.app, m)).mfa_token, { recovery_code: code });
    expect(first.status).toBe(200);
    const again = await second((await firstStep(svc.app, m)).mfa_token, { recovery_code: code });
    expect(again.status).toBe(401);
    // Typed in upper case without dashes, another code works.
    const typed = recoveryCodes[1]!.replaceAll('-', '').toUpperCase();
    expect((await second((await firstStep(svc.app, m)).mfa_token, { recovery_code: typed })).status).toBe(
      200,
    );
    const used = await entries(svc.app, m, 'member.recovery_code_used');
    expect(used.map((e) => e.metadata.remaining)).toEqual([8, 9]);
    const factors = await call(svc.app, m.auth, 'GET', '/auth/mfa');
    expect(factors.body.data.recovery_codes_left).toBe(8);
  });

  it('sends a user with a factor from the authorize page’s sign-in form to the dashboard', async () => {
    const client = await createApp(svc.app, m);
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        email: m.email,
        password: m.password,
        return_to: authorizeUrl(client, { code_challenge: pkce().challenge }),
      }).toString(),
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('sign in on the dashboard first');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a body with no factor or two', async () => {
    const { mfa_token } = await firstStep(svc.app, m);
    expect((await second(mfa_token, {})).status).toBe(400);
    const two = await second(mfa_token, { code: '123456', recovery_code: recoveryCodes[2] });
    expect(two.status).toBe(400);
  });
});

describe('turning TOTP off', () => {
  it('needs the password and a current factor, and leaves the password alone to sign in', async () => {
    const m = await signupMerchant(svc.app);
    const { secret, recoveryCodes } = await enrolTotp(svc.app, m.auth, clock);
    // Out of the window the enrolment opened: a factor is asked.
    clock.advance(11 * MINUTE);
    const off = (body: object) => call(svc.app, m.auth, 'DELETE', '/auth/mfa/totp', body);
    const wrongPassword = await off({ password: 'not the password', code: codeAt(secret, clock.now()) });
    expect([wrongPassword.status, wrongPassword.body.error.code]).toEqual([403, 'forbidden']);
    expect((await off({ password: m.password })).status).toBe(400);
    expect((await off({ password: m.password, code: '000000' })).status).toBe(403);
    expect((await off({ password: m.password, recovery_code: 'aaaaa-bbbbb-ccccc' })).status).toBe(403);
    expect((await off({ password: m.password, code: nextCode(secret) })).status).toBe(204);

    const factors = await call(svc.app, m.auth, 'GET', '/auth/mfa');
    expect(factors.body.data).toMatchObject({ totp: false, recovery_codes_left: 0 });
    expect((await login(svc.app, m)).data.token).toMatch(/^svc_mst_/);
    const [entry] = await entries(svc.app, m, 'member.mfa_disabled');
    expect(entry).toMatchObject({ entityId: m.userId, metadata: { method: 'totp' } });
    // The recovery codes went with the last factor.
    expect(recoveryCodes).toHaveLength(10);
    const left = await svc.ctx.db
      .selectFrom('recovery_codes')
      .select('user_id')
      .where('user_id', '=', m.userId)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('step-up', () => {
  let m: TestMerchant;
  let secret: string;
  beforeAll(async () => {
    m = await signupMerchant(svc.app);
    ({ secret } = await enrolTotp(svc.app, m.auth, clock));
  });

  const live = { 'x-svc-mode': 'live' };

  it('is open for 10 minutes after the enrolment, then answers 403 step_up_required on the list', async () => {
    const webhook = await createWebhook(svc, m, 'https://example.com/step-up');
    const reveal = () =>
      call(svc.app, m.auth, 'POST', `/webhooks/${webhook.id}/reveal-secret`, { password: m.password });
    expect((await reveal()).status).toBe(200);
    clock.advance(10 * MINUTE);
    const refused = await reveal();
    expect([refused.status, refused.body.error.code]).toEqual([403, 'step_up_required']);
    // Live keys and live app secrets need it; test ones do not.
    const liveKey = await call(svc.app, { ...m.auth, ...live }, 'POST', '/api-keys', {});
    expect([liveKey.status, liveKey.body.error?.code]).toEqual([403, 'step_up_required']);
    expect((await call(svc.app, m.auth, 'POST', '/api-keys', {})).status).toBe(201);
    const app = {
      name: 'Step app',
      redirect_uris: ['https://example.com/cb'],
      allowed_scopes: ['public:read'],
    };
    const liveApp = await call(svc.app, { ...m.auth, ...live }, 'POST', '/developer/apps', app);
    expect([liveApp.status, liveApp.body.error?.code]).toEqual([403, 'step_up_required']);
    const member = await addMember(svc.app, m, 'viewer');
    const remove = await call(svc.app, m.auth, 'DELETE', `/members/${member.userId}`);
    expect([remove.status, remove.body.error?.code]).toEqual([403, 'step_up_required']);
    const rotate = await call(
      svc.app,
      m.auth,
      'POST',
      `/members/${member.userId}/exposed-credentials/rotate`,
      {},
    );
    expect([rotate.status, rotate.body.error?.code]).toEqual([403, 'step_up_required']);
  });

  it('opens again with POST /auth/step-up, for 10 minutes by the clock', async () => {
    clock.advance(10 * MINUTE);
    const wrong = await call(svc.app, m.auth, 'POST', '/auth/step-up', { code: '000000' });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'forbidden']);
    const res = await call(svc.app, m.auth, 'POST', '/auth/step-up', { code: nextCode(secret) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ method: 'totp' });
    expect(Date.parse(res.body.data.expires_at) - Date.parse(res.body.data.stepped_up_at)).toBe(10 * MINUTE);

    const liveKey = () => call(svc.app, { ...m.auth, ...live }, 'POST', '/api-keys', {});
    expect((await liveKey()).status).toBe(201);
    clock.advance(10 * MINUTE - 1);
    expect((await liveKey()).status).toBe(201);
    clock.advance(1);
    expect((await liveKey()).status).toBe(403);
  });

  it('belongs to the session that stepped up, not to the user’s other sessions', async () => {
    const { mfa_token } = await firstStep(svc.app, m);
    const other = await call(svc.app, undefined, 'POST', '/auth/login/mfa', {
      mfa_token,
      code: nextCode(secret),
    });
    const otherLive = { authorization: `Bearer ${other.body.data.token}`, ...live };
    const mineLive = { ...m.auth, ...live };
    // A sign-in with a factor opens its session's window at once.
    expect((await call(svc.app, otherLive, 'POST', '/api-keys', {})).status).toBe(201);
    clock.advance(9 * MINUTE);
    await call(svc.app, m.auth, 'POST', '/auth/step-up', { code: nextCode(secret) });
    clock.advance(MINUTE);
    expect((await call(svc.app, mineLive, 'POST', '/api-keys', {})).status).toBe(201);
    expect((await call(svc.app, otherLive, 'POST', '/api-keys', {})).status).toBe(403);
  });

  it('guards new recovery codes, which replace the old ones', async () => {
    const user = await signupMerchant(svc.app);
    const enrolled = await enrolTotp(svc.app, user.auth, clock);
    clock.advance(11 * MINUTE);
    const refused = await call(svc.app, user.auth, 'POST', '/auth/mfa/recovery-codes');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'step_up_required']);
    await call(svc.app, user.auth, 'POST', '/auth/step-up', { code: nextCode(enrolled.secret) });
    const res = await call(svc.app, user.auth, 'POST', '/auth/mfa/recovery-codes');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const fresh = res.body.data.recovery_codes as string[];
    expect(fresh).toHaveLength(10);
    const second = (factor: object) =>
      firstStep(svc.app, user).then(({ mfa_token }) =>
        call(svc.app, undefined, 'POST', '/auth/login/mfa', { mfa_token, ...factor }),
      );
    expect((await second({ recovery_code: enrolled.recoveryCodes[0] })).status).toBe(401);
    expect((await second({ recovery_code: fresh[0] })).status).toBe(200);
  });

  it('is shown on each operation of the list in the OpenAPI document', async () => {
    const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { 'x-svc-step-up'?: string; description?: string }>>;
    }>();
    const stepUps = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op['x-svc-step-up'] !== undefined)
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${op['x-svc-step-up']}`),
    );
    const m = '/api/v1/merchant';
    expect(stepUps.sort()).toEqual([
      `DELETE ${m}/members/{userID} always`,
      `POST ${m}/api-keys live`,
      `POST ${m}/api-keys/{keyID}/rotate live`,
      `POST ${m}/auth/mfa/recovery-codes always`,
      `POST ${m}/developer/apps live`,
      `POST ${m}/developer/apps/{appID}/rotate-secret live`,
      `POST ${m}/members/{userID}/exposed-credentials/rotate always`,
      `POST ${m}/webhooks/{webhookID}/reveal-secret always`,
    ]);
    expect(doc.paths[`${m}/api-keys`]!.post!.description).toContain('403 step_up_required');
  });

  it('is not asked of a user without a second factor', async () => {
    const plain = await signupMerchant(svc.app);
    const res = await call(svc.app, { ...plain.auth, ...live }, 'POST', '/api-keys', {});
    expect(res.status).toBe(201);
  });
});

describe('a merchant requiring a second factor', () => {
  it('lets a member without one only enrol, and only an owner sets it', async () => {
    const owner = await signupMerchant(svc.app);
    const admin = await addMember(svc.app, owner, 'admin');
    const byAdmin = await call(svc.app, admin.auth, 'PATCH', '/settings', { require_mfa: true });
    expect([byAdmin.status, byAdmin.body.error.code]).toEqual([403, 'forbidden']);
    await enrolTotp(svc.app, owner.auth, clock);
    const set = await call(svc.app, owner.auth, 'PATCH', '/settings', { require_mfa: true });
    // The answer names who is now held to enrolment (API.md 12.4): the admin, with no factor yet.
    expect([set.status, set.body.data]).toEqual([
      200,
      {
        require_mfa: true,
        members_without_second_factor: [{ id: expect.stringMatching(/^usr_/), email: admin.email }],
      },
    ]);
    const [entry] = await entries(svc.app, owner, 'merchant.settings_updated');
    expect(entry).toMatchObject({ entityId: owner.merchantId, metadata: { require_mfa: true } });

    // The owner has a factor: nothing changes for it.
    expect((await call(svc.app, owner.auth, 'GET', '/api-keys')).status).toBe(200);
    const refused = await call(svc.app, admin.auth, 'GET', '/api-keys');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'mfa_enrolment_required']);
    expect((await call(svc.app, admin.auth, 'GET', '/members')).status).toBe(403);
    expect((await call(svc.app, admin.auth, 'GET', '/me')).status).toBe(200);
    expect((await call(svc.app, admin.auth, 'GET', '/settings')).status).toBe(403);
    // The consent step of the OAuth flow, which checks the role itself, checks this too.
    const client = await createApp(svc.app, owner);
    const consent = await svc.app.inject({
      url: authorizeUrl(client, { code_challenge: pkce().challenge }),
      headers: { ...admin.auth, accept: 'application/json' },
    });
    expect([consent.statusCode, consent.json().error.code]).toEqual([403, 'mfa_enrolment_required']);
    await enrolTotp(svc.app, admin.auth, clock);
    expect((await call(svc.app, admin.auth, 'GET', '/api-keys')).status).toBe(200);
    expect((await call(svc.app, admin.auth, 'GET', '/settings')).body.data).toEqual({
      require_mfa: true,
      members_without_second_factor: [],
    });
  });
});

describe('an operator’s reset (svc mfa reset)', () => {
  it('removes every factor and session of the user, audited by the system with the reason', async () => {
    const m = await signupMerchant(svc.app);
    await enrolTotp(svc.app, m.auth, clock);
    const result = await resetFactors(svc.ctx, m.email.toUpperCase(), 'ticket 1');
    expect(result).toEqual({ user_id: m.userId, merchants: 1 });
    expect((await call(svc.app, m.auth, 'GET', '/me')).status).toBe(401);
    const signedIn = await login(svc.app, m);
    const factors = await call(svc.app, signedIn.auth, 'GET', '/auth/mfa');
    expect(factors.body.data).toMatchObject({ totp: false, passkeys: 0, recovery_codes_left: 0 });
    const [entry] = await entries(svc.app, { ...m, auth: signedIn.auth }, 'member.mfa_disabled');
    expect(entry).toMatchObject({
      entityId: m.userId,
      metadata: { actor: { type: 'system', id: 'operator' }, reason: 'ticket 1', by: 'operator' },
    });
  });
});
