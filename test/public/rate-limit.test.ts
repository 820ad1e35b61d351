// Public API rate limits in memory (the embedded default): per credential owner and mode, the IETF RateLimit
// fields on every answer that has a principal, 429 rate_limited with Retry-After once the bucket is spent, and
// another owner untouched. The shared (Redis) variant is test/system/rate-limit-redis.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';

const COUNTRIES = '/api/public/v1/payments/supported-countries';
let svc: TestService;
let first: TestKey;
let second: TestKey;
let other: TestKey;

beforeAll(async () => {
  svc = await startTestService({
    env: {
      SVC_RATE_LIMIT: 'on',
      SVC_RATE_LIMIT_TEST: '2',
      SVC_RATE_LIMIT_LIVE: '50',
      SVC_RATE_LIMIT_BURST: '5',
    },
  });
  const m = await signupMerchant(svc.app);
  first = await createKey(svc.app, m);
  second = await createKey(svc.app, m); // same owner (merchant and mode): same bucket
  other = await createKey(svc.app, await signupMerchant(svc.app, 'Other'));
}, 180_000);
afterAll(async () => svc?.close());

const get = (key: TestKey) =>
  svc.app.inject({ url: COUNTRIES, headers: { authorization: `Bearer ${key.secret_key}` } });

it('spends one bucket per merchant and mode across its keys, then answers 429 with Retry-After', async () => {
  const answers = [];
  for (let i = 0; i < 15; i++) answers.push(await get(i % 2 ? second : first));
  const ok = answers.filter((a) => a.statusCode === 200).length;
  // a bucket of 2/s x 5 s = 10, plus what refilled during the calls
  expect(ok).toBeGreaterThanOrEqual(10);
  expect(ok).toBeLessThanOrEqual(12);
  for (const a of answers) {
    expect(a.headers['ratelimit-policy']).toBe('"test";q=10;w=5');
    expect(a.headers.ratelimit).toMatch(/^"test";r=\d+;t=\d+$/);
  }
  expect(answers[0]!.headers.ratelimit).toBe('"test";r=9;t=1');
  const refused = answers.at(-1)!;
  expect(refused.statusCode).toBe(429);
  expect(refused.json().error.code).toBe('rate_limited');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // another merchant has its own bucket
  expect((await get(other)).statusCode).toBe(200);
});
