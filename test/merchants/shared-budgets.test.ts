// The sign-in failure budgets live in the database (API.md 11.3; docs/decisions/0161-sign-in-budgets-shared.md):
// two services on one database, as two processes, fill one budget between them, a service started afresh
// finds it as it was, and the session purge removes what every budget has forgotten. The clock stands still
// unless the test moves it, so a wait never runs out between two requests. (On PGlite too: the statements of
// sign-in-failures.repository.ts.)
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { purgeForgottenBudgets } from '../../src/modules/identity/sign-in-limits.ts';
import { enrolTotp, firstStep } from './factors-support.ts';

const clock = new TestClock();
const env = { SVC_RATE_LIMIT: 'on' };
const MINUTE = 60_000;
let a: TestService;
let b: TestService;
let m: TestMerchant;
let mfaToken: string;

beforeAll(async () => {
  a = await startTestService({ env, clock });
  b = await startTestService({ env, clock, shareWith: a });
  m = await signupMerchant(a.app);
  await enrolTotp(a.app, m.auth, clock);
  ({ mfa_token: mfaToken } = await firstStep(a.app, m));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const wrongCode = (svc: TestService) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login/mfa',
    remoteAddress: '198.51.100.20',
    payload: { mfa_token: mfaToken, code: '000000' },
  });

const rows = async (svc: TestService) =>
  (await sql<{ n: number }>`select count(*)::int as n from sign_in_failures`.execute(svc.ctx.db)).rows[0]!.n;

it('fills one budget from two services: six wrong codes between them, then 429 on both', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await wrongCode(i % 2 === 0 ? a : b)).statusCode);
  expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
  for (const svc of [a, b]) {
    const refused = await wrongCode(svc);
    expect([refused.statusCode, refused.json().error.code]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  }
  // The account's budget and the address's, keyed by hashes: neither the email nor the address in clear.
  const keys = await sql<{ scope: string; key: string }>`select scope, key from sign_in_failures`.execute(
    a.ctx.db,
  );
  expect(keys.rows.map((r) => r.scope).toSorted()).toEqual(['account', 'address']);
  for (const r of keys.rows) expect(r.key).toMatch(/^[0-9a-f]{64}$/);
});

it('keeps the count through a restart', async () => {
  await b.close();
  b = await startTestService({ env, clock, shareWith: a });
  expect((await wrongCode(b)).statusCode).toBe(429);
});

it('forgets a budget an hour after its last failure, and the purge removes its rows', async () => {
  await purgeForgottenBudgets(a.ctx);
  expect(await rows(a)).toBe(2);
  clock.advance(61 * MINUTE);
  await purgeForgottenBudgets(a.ctx);
  expect(await rows(a)).toBe(0);
  ({ mfa_token: mfaToken } = await firstStep(b.app, m));
  expect((await wrongCode(a)).statusCode).toBe(401);
  expect(await rows(a)).toBe(2);
});
