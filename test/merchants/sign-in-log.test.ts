// Sign-in successes and failures leave one info line each, with the account id, the client address and the
// request id, and never the password (nor the email: the account id names the account).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { captureLogs } from '../support/logs.ts';

const { stream, raw: lines } = captureLogs();

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService({
    env: { SVC_LOG_LEVEL: 'info', SVC_RATE_LIMIT: 'on', SVC_TRUST_PROXY: '10.0.0.0/8' },
    logStream: stream,
  });
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close());

type Line = Record<string, unknown>;
const parsed = () => lines.map((l) => JSON.parse(l) as Line);
const forRequest = (id: string) => parsed().filter((l) => l.request_id === id);

async function login(password: string, requestId: string, email = m.email) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login',
    remoteAddress: '10.0.0.5',
    headers: { 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.9' },
    payload: { email, password },
  });
}

it('logs a failure at info with the account id, the client address and the request id', async () => {
  expect((await login('wrong password!', 'req-sign-in-fail')).statusCode).toBe(401);
  const [line, ...more] = forRequest('req-sign-in-fail').filter((l) => l.msg === 'sign-in failed');
  expect(more).toEqual([]);
  expect(line).toMatchObject({
    level: 30,
    user_id: m.userId,
    merchant_id: m.merchantId,
    ip: '203.0.113.9',
    outcome: 'failed',
  });
});

it('logs a failure for an unknown email without an account id', async () => {
  await login('wrong password!', 'req-sign-in-unknown', 'nobody-here@example.com');
  const line = forRequest('req-sign-in-unknown').find((l) => l.msg === 'sign-in failed');
  expect(line).toMatchObject({ level: 30, ip: '203.0.113.9', outcome: 'failed' });
  expect(line).not.toHaveProperty('user_id');
});

it('logs a success at info the same way', async () => {
  expect((await login(m.password, 'req-sign-in-ok')).statusCode).toBe(200);
  const line = forRequest('req-sign-in-ok').find((l) => l.msg === 'sign-in succeeded');
  expect(line).toMatchObject({ level: 30, user_id: m.userId, ip: '203.0.113.9', outcome: 'succeeded' });
});

it('logs a refusal by the limits', async () => {
  let res = await login('wrong password!', 'req-sign-in-limited-0');
  for (let i = 1; res.statusCode !== 429 && i < 30; i++) {
    res = await login('wrong password!', `req-sign-in-limited-${i}`);
  }
  expect(res.statusCode).toBe(429);
  const id = res.headers['x-request-id'] as string;
  expect(forRequest(id).find((l) => l.outcome === 'limited')).toMatchObject({ level: 30, ip: '203.0.113.9' });
});

it('never writes the password or the email', () => {
  const text = lines.join('\n');
  expect(text).toContain('sign-in succeeded');
  expect(text).not.toContain(m.password);
  expect(text).not.toContain('wrong password!');
  expect(text).not.toContain(m.email);
  expect(text).not.toContain('nobody-here@example.com');
});
