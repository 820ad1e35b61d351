// Every convention of API.md section 1, each produced by a request a client could send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';

let svc: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
});
afterAll(async () => svc?.close());

function expectError(
  res: { statusCode: number; json(): any; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.request_id).toBe(res.headers['x-request-id']);
  return body.error;
}

describe('error envelope and codes', () => {
  it('400 validation_failed names each bad field', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/signup',
      payload: { merchant_name: '', email: 'not-an-email', password: 'short', extra: true },
    });
    const error = expectError(res, 400, 'validation_failed');
    const fields = error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['email', 'extra', 'merchant_name', 'password']);
    expect(error.details.find((d: { field: string }) => d.field === 'extra').issue).toMatch(
      /not an allowed field/,
    );
  });

  it('400 validation_failed for a missing required field', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: 'a@b.co' },
    });
    const error = expectError(res, 400, 'validation_failed');
    expect(error.details).toEqual([{ field: 'password', issue: 'is required' }]);
  });

  it('400 invalid_json for malformed JSON', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expectError(res, 400, 'invalid_json');
  });

  it('400 invalid_json for a prototype-poisoning body', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a@b.co","password":"x","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
  });

  it('400 invalid_mode for an X-Svc-Mode other than test or live', async () => {
    const res = await svc.app.inject({
      url: '/api/v1/merchant/me',
      headers: { ...m.auth, 'x-svc-mode': 'prod' },
    });
    expectError(res, 400, 'invalid_mode');
  });

  it('401 unauthenticated without a credential, 401 invalid_credential with a bad one', async () => {
    expectError(await svc.app.inject({ url: '/api/v1/merchant/me' }), 401, 'unauthenticated');
    expectError(
      await svc.app.inject({ url: '/api/v1/merchant/me', headers: { authorization: 'Bearer svc_mst_nope' } }),
      401,
      'invalid_credential',
    );
    expectError(
      await svc.app.inject({ url: '/api/v1/merchant/me', cookies: { svc_session: 'garbage' } }),
      401,
      'invalid_credential',
    );
  });

  it('403 forbidden for a cookie-authenticated change from another origin', async () => {
    const login = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: m.email, password: m.password },
    });
    const token = login.json().data.token as string;
    const foreign = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/logout',
      cookies: { svc_session: token },
      headers: { origin: 'https://evil.example' },
    });
    expectError(foreign, 403, 'forbidden');
    const own = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/logout',
      cookies: { svc_session: token },
      headers: { origin: new URL(svc.config.publicUrl).origin },
    });
    expect(own.statusCode).toBe(204);
  });

  it('404 not_found for an unknown path', async () => {
    expectError(
      await svc.app.inject({ url: '/api/v1/merchant/nothing-here', headers: m.auth }),
      404,
      'not_found',
    );
    expectError(await svc.app.inject({ url: '/nothing' }), 404, 'not_found');
  });

  it('405 method_not_allowed with Allow for a known path', async () => {
    const res = await svc.app.inject({ method: 'DELETE', url: '/api/v1/merchant/me', headers: m.auth });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('409 conflict for a taken email', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/signup',
      payload: { merchant_name: 'Again', email: m.email, password: 'another long one' },
    });
    expectError(res, 409, 'conflict');
  });

  it('413 payload_too_large over 1 MiB', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1024 * 1024) }),
    });
    expectError(res, 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'content-type': 'text/plain' },
      payload: 'email=a',
    });
    expectError(res, 415, 'unsupported_media_type');
    const form = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a&password=b',
    });
    expectError(form, 415, 'unsupported_media_type');
  });
});

describe('bodies', () => {
  it('a POST that takes no body accepts none, {} and an empty JSON body', async () => {
    for (const variant of [
      {},
      { payload: '{}', headers: { 'content-type': 'application/json' } },
      { payload: '', headers: { 'content-type': 'application/json' } },
    ]) {
      const login = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/auth/login',
        payload: { email: m.email, password: m.password },
      });
      const auth = { authorization: `Bearer ${login.json().data.token}` };
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/auth/logout',
        ...variant,
        headers: { ...auth, ...variant.headers },
      });
      expect(res.statusCode).toBe(204);
    }
  });

  it('a POST that takes no body rejects unknown fields', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/logout',
      headers: m.auth,
      payload: { x: 1 },
    });
    expectError(res, 400, 'validation_failed');
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id', async () => {
    const res = await svc.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc.DEF_123-x' } });
    expect(res.headers['x-request-id']).toBe('abc.DEF_123-x');
  });

  it('replaces a malformed one with a req_ id, also on errors', async () => {
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const res = await svc.app.inject({ url: '/nothing', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]+$/);
      expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
    }
  });
});

describe('health', () => {
  it('/healthz and /readyz answer 200', async () => {
    expect((await svc.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await svc.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('times', () => {
  it('are ISO 8601 UTC with milliseconds and Z', async () => {
    const me = await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth });
    expect(me.json().data.merchant.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
