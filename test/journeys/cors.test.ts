// CORS on the public interface (API.md section 6, Browsers): preflights, headers on every answer including
// errors, none on the merchant interface or the OAuth endpoints, and secret keys and access tokens refused
// when a browser sends them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { bearer, createKey, type TestKey } from '../api-keys/keys.ts';
import { createApp, exchange, getCode } from '../oauth/helpers.ts';

const ORIGIN = 'https://shop.example.net';
let svc: TestService;
let m: TestMerchant;
let key: TestKey;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  key = await createKey(svc.app, m);
});
afterAll(async () => svc?.close());

const preflight = (url: string, method = 'GET') =>
  svc.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, x-svc-mode',
    },
  });

describe('preflight', () => {
  it('answers 204 with the path methods, the allowed headers and a max age', async () => {
    for (const [url, methods] of [
      ['/api/public/v1/payments/supported-countries', 'GET, HEAD'],
      ['/api/public/v1/stores', 'GET, HEAD'],
      [`/api/public/v1/stores/${m.storeId}/cart`, 'POST'],
    ] as const) {
      const res = await preflight(url, methods === 'POST' ? 'POST' : 'GET');
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe(methods);
      expect(res.headers['access-control-allow-headers']).toBe(
        'Authorization, X-Svc-Mode, Idempotency-Key, Content-Type',
      );
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.body).toBe('');
    }
  });

  it('is not offered by the merchant interface, the dashboard or the OAuth endpoints', async () => {
    for (const url of [
      '/api/v1/merchant/api-keys',
      '/api/public/v1/oauth/token',
      '/dashboard/',
      '/healthz',
    ]) {
      const res = await preflight(url, 'POST');
      expect(res.statusCode, url).not.toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });
});

describe('actual answers', () => {
  const exposed = (h: unknown) =>
    String(h)
      .split(',')
      .map((s) => s.trim().toLowerCase());

  it('carry Access-Control-Allow-Origin and expose the request id and rate-limit headers, errors too', async () => {
    const answers = [
      await svc.app.inject({
        url: '/api/public/v1/payments/supported-countries',
        headers: { ...bearer(key.publishable_key), origin: ORIGIN },
      }),
      await svc.app.inject({ url: '/api/public/v1/stores', headers: { origin: ORIGIN } }),
      await svc.app.inject({
        url: '/api/public/v1/stores',
        headers: { ...bearer(key.publishable_key, 'bogus'), origin: ORIGIN },
      }),
      await svc.app.inject({ url: '/api/public/v1/no-such-path', headers: { origin: ORIGIN } }),
      await svc.app.inject({
        method: 'POST',
        url: `/api/public/v1/stores/${m.storeId}/cart`,
        headers: { ...bearer(key.publishable_key), origin: ORIGIN },
      }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 400, 404, 403]);
    for (const res of answers) {
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(exposed(res.headers['access-control-expose-headers'])).toEqual(
        expect.arrayContaining(['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after']),
      );
    }
  });

  it('are absent from the merchant interface', async () => {
    const res = await svc.app.inject({ url: '/api/v1/merchant/me', headers: { ...m.auth, origin: ORIGIN } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('credentials that belong on a server', () => {
  it('refuses a secret key sent with Origin, with a message that says where it belongs', async () => {
    const res = await svc.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: { ...bearer(key.secret_key), origin: ORIGIN },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('credential_not_browser_safe');
    expect(res.json().error.message).toMatch(/server/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // The same key without Origin (a server) works.
    const server = await svc.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: bearer(key.secret_key),
    });
    expect(server.statusCode).toBe(200);
  });

  it('refuses an access token sent with Origin; a publishable key works from any origin', async () => {
    const client = await createApp(svc.app, m);
    const { code, verifier } = await getCode(svc.app, client, m);
    const { access_token } = await exchange(svc.app, client, code, verifier);
    const refused = await svc.app.inject({
      url: '/api/public/v1/stores',
      headers: { ...bearer(access_token), origin: 'null' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('credential_not_browser_safe');
    for (const origin of [ORIGIN, 'http://localhost:3000', 'null']) {
      const res = await svc.app.inject({
        url: '/api/public/v1/stores',
        headers: { ...bearer(key.publishable_key), origin },
      });
      expect(res.statusCode, origin).toBe(200);
    }
  });

  it('checks the credential before its kind: an unknown secret-shaped token is still 401', async () => {
    const res = await svc.app.inject({
      url: '/api/public/v1/stores',
      headers: { ...bearer('svc_test_sk_nope'), origin: ORIGIN },
    });
    expect(res.statusCode).toBe(401);
  });
});
