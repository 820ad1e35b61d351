// `npx svc mfa reset`: an operator's way back in for a user who lost every second factor (docs/operations.md).
// Against the test's PostgreSQL database while the service runs: the factors and sessions go, the password
// alone signs in again, and each of the user's merchants has the audit entry, by the system, with the reason.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant } from '../support/merchants.ts';
import { runSvc } from '../support/processes.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { call, entries } from '../members/support.ts';
import { enrolTotp } from '../merchants/factors-support.ts';

const clock = new TestClock();
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(async () => svc?.close());

it('removes every factor and session of the user, audited with the reason in each of its merchants', async () => {
  const m = await signupMerchant(svc.app, 'Lost phone');
  await enrolTotp(svc.app, m.auth, clock);
  const before = await call(svc.app, undefined, 'POST', '/auth/login', {
    email: m.email,
    password: m.password,
  });
  expect(before.body.data.mfa_required).toBe(true);

  const run = runSvc(['mfa', 'reset', '--email', m.email, '--reason', 'ticket 4711, video call', '--json'], {
    databaseUrl: svc.databaseUrl,
    dataDir: '',
  });
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(JSON.parse(run.stdout)).toEqual({ user_id: m.userId, merchants: 1 });

  // The session of the enrolment ended; the password alone signs in now.
  expect((await call(svc.app, m.auth, 'GET', '/me')).status).toBe(401);
  const after = await call(svc.app, undefined, 'POST', '/auth/login', {
    email: m.email,
    password: m.password,
  });
  expect(after.body.data.token).toMatch(/^svc_mst_/);
  const auth = { authorization: `Bearer ${after.body.data.token}` };
  expect((await call(svc.app, auth, 'GET', '/auth/mfa')).body.data).toMatchObject({
    totp: false,
    passkeys: 0,
    recovery_codes_left: 0,
  });
  for (const mode of ['test', 'live']) {
    const [entry] = await entries(
      svc.app,
      { ...m, auth: { ...auth, 'x-svc-mode': mode } },
      'member.mfa_disabled',
    );
    expect(entry).toMatchObject({
      entityId: m.userId,
      metadata: {
        actor: { type: 'system', id: 'operator' },
        method: 'all',
        reason: 'ticket 4711, video call',
      },
    });
  }
  const unknown = runSvc(['mfa', 'reset', '--email', 'nobody@example.com', '--reason', 'x'], {
    databaseUrl: svc.databaseUrl,
    dataDir: '',
  });
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toContain('not_found');
}, 120_000);
