import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SVC_RATE_LIMIT: 'on' } });
});
afterAll(async () => svc?.close());

it('answers 429 rate_limited with Retry-After after repeated sign-in attempts', async () => {
  let last = await svc.app.inject({ url: '/healthz' });
  for (let i = 0; i < 25; i++) {
    last = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: 'nobody@example.com', password: 'wrong password' },
    });
    if (last.statusCode === 429) break;
  }
  expect(last.statusCode).toBe(429);
  expect(last.json().error.code).toBe('rate_limited');
  expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
});
