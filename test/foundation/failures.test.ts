// What a client sees when the service itself fails: 500 internal_error with no stack, SQL or secret, and
// /readyz answering 503 while the database is gone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close().catch(() => {}));

it('answers 500 internal_error and 503 not ready when the database is gone', async () => {
  await svc.database.db.destroy();
  const res = await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth });
  expect(res.statusCode).toBe(500);
  const body = res.json();
  expect(body.error.code).toBe('internal_error');
  expect(body.error.request_id).toBe(res.headers['x-request-id']);
  expect(res.body).not.toMatch(/select|sessions|at .*\.ts|svc_mst_/i);
  expect((await svc.app.inject({ url: '/readyz' })).statusCode).toBe(503);
});
