import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

describe('merchant sign-in', () => {
  it('signs up, reads me, logs out, and the session ends at once', async () => {
    const m = await signupMerchant(svc.app, 'Acme');
    const me = await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.merchant).toMatchObject({ id: m.merchantId, name: 'Acme' });
    expect(me.json().data.stores).toHaveLength(1);

    const out = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/logout',
      headers: m.auth,
    });
    expect(out.statusCode).toBe(204);
    const after = await svc.app.inject({ url: '/api/v1/merchant/me', headers: m.auth });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('invalid_credential');
  });

  it('logs in with a cookie that is HttpOnly and SameSite=Lax', async () => {
    const m = await signupMerchant(svc.app);
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: m.email.toUpperCase(), password: m.password },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.token).toMatch(/^svc_mst_/);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^svc_session=svc_mst_/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const token = cookie.split(';')[0]!.split('=')[1]!;
    const me = await svc.app.inject({ url: '/api/v1/merchant/me', cookies: { svc_session: token } });
    expect(me.statusCode).toBe(200);
  });

  it('answers an unknown email and a wrong password the same', async () => {
    const m = await signupMerchant(svc.app);
    const wrong = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: m.email, password: 'nope nope nope' },
    });
    const unknown = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: 'nobody@example.com', password: 'nope nope nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credentials');
    expect({ ...wrong.json().error, request_id: 0 }).toEqual({ ...unknown.json().error, request_id: 0 });
  });

  it('refuses a taken email with 409 conflict', async () => {
    const m = await signupMerchant(svc.app);
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/signup',
      payload: { merchant_name: 'X', email: m.email, password: 'another long one' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
  });
});
