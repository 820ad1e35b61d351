// One failure budget for every check of a password, a code or a recovery code (API.md section 11.3): wrong
// codes at the second step of a sign-in, wrong codes at step-up and wrong passwords at reveal-secret fill the
// same account budget, and past it each of them answers 429 `rate_limited` with Retry-After. Every failure is
// audited as `member.auth_failed` with the check's name, never the value tried. The clock stands still, so a
// wait the budget starts never runs out between two requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { call } from '../members/support.ts';
import { createWebhook, type CreatedWebhook } from '../webhooks/helpers.ts';
import { codeAt, enrolTotp, firstStep } from './factors-support.ts';

const clock = new TestClock();
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_RATE_LIMIT: 'on' }, clock });
});
afterAll(async () => svc?.close());

const THIEF = '198.51.100.9';
const WRONG_CODE = '000000';
const MINUTE = 60_000;

const inject = (auth: Record<string, string> | undefined, url: string, payload: object) =>
  svc.app.inject({
    method: 'POST',
    url: `/api/v1/merchant${url}`,
    headers: auth ?? {},
    remoteAddress: THIEF,
    payload,
  });

describe('the failure budget shared by sign-in, step-up and reveal', () => {
  let m: TestMerchant;
  let secret: string;
  let webhook: CreatedWebhook;
  let mfaToken: string;
  const statuses: number[] = [];
  const wrongCode = (url: string, auth?: Record<string, string>) =>
    inject(auth, url, { ...(auth ? {} : { mfa_token: mfaToken }), code: WRONG_CODE });

  beforeAll(async () => {
    m = await signupMerchant(svc.app);
    webhook = await createWebhook(svc, m, 'https://example.com/budget');
    ({ secret } = await enrolTotp(svc.app, m.auth, clock));
    // Within the window the enrolment opened, reveal asks the password alone: two wrong ones.
    for (let i = 0; i < 2; i++) {
      const res = await inject(m.auth, `/webhooks/${webhook.id}/reveal-secret`, {
        password: 'not the password',
      });
      statuses.push(res.statusCode);
    }
    clock.advance(11 * MINUTE);
    // The right password of the first step does not forget them: knowing the password must not reset the
    // budget of the codes.
    ({ mfa_token: mfaToken } = await firstStep(svc.app, m));
    for (let i = 0; i < 2; i++) statuses.push((await wrongCode('/auth/login/mfa')).statusCode);
    for (let i = 0; i < 2; i++) statuses.push((await wrongCode('/auth/step-up', m.auth)).statusCode);
  });

  it('counts every kind of check against one budget, then answers 429 with Retry-After to each', async () => {
    // Five failures are free on an account, the sixth starts a wait (sign-in.service.ts).
    expect(statuses).toEqual([403, 403, 401, 401, 403, 403]);
    const secondStep = await wrongCode('/auth/login/mfa');
    expect([secondStep.statusCode, secondStep.json().error.code]).toEqual([429, 'rate_limited']);
    expect(Number(secondStep.headers['retry-after'])).toBeGreaterThan(0);
    // A right code waits too: it is not even tried.
    const stepUp = await inject(m.auth, '/auth/step-up', { code: codeAt(secret, clock.now()) });
    expect([stepUp.statusCode, stepUp.json().error.code]).toEqual([429, 'rate_limited']);
    expect(stepUp.headers['retry-after']).toBeDefined();
    const password = await inject(undefined, '/auth/login', { email: m.email, password: m.password });
    expect(password.statusCode).toBe(429);
  });

  it('audits each failure as member.auth_failed with its check, never the value tried', async () => {
    const res = await call(svc.app, m.auth, 'GET', '/developer/logs?action=member.auth_failed&limit=50');
    const items = res.body.data.items as { entity_id: string; metadata: string }[];
    const checks = items.map((e) => JSON.parse(e.metadata) as Record<string, unknown>).map((e) => e.check);
    expect(checks.sort()).toEqual(['login', 'login', 'reveal', 'reveal', 'step_up', 'step_up']);
    for (const entry of items) {
      expect(entry.entity_id).toBe(m.userId);
      // the request id is ours (a counter, which may hold six zeros): every other field must not hold the value
      const { request_id: _id, ...fields } = JSON.parse(entry.metadata) as Record<string, unknown>;
      expect(JSON.stringify(fields)).not.toContain(WRONG_CODE);
      expect(entry.metadata).not.toContain('not the password');
      expect(JSON.parse(entry.metadata)).toMatchObject({
        actor: { type: 'user', id: m.userId, email: m.email },
      });
    }
  });
});
