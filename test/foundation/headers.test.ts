// The headers every answer carries (src/http/security-headers.ts): nosniff everywhere, HSTS behind an https
// public URL, a Content-Security-Policy with no framing on /docs, and no-store on every answer that can
// carry a secret or a session, whatever its status.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey } from '../api-keys/keys.ts';
import { createApp } from '../oauth/helpers.ts';

let svc: TestService;
let tls: TestService;
let m: TestMerchant;
beforeAll(async () => {
  svc = await startTestService();
  tls = await startTestService({ shareWith: svc, env: { SVC_PUBLIC_URL: 'https://svc.example.com' } });
  m = await signupMerchant(svc.app);
}, 180_000);
afterAll(async () => {
  await tls?.close();
  await svc?.close();
});

const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, 'x_1').replace('*', 'x');

describe('X-Content-Type-Options', () => {
  it.each([
    '/healthz',
    '/readyz',
    '/no/such/path',
    '/api/v1/merchant/me',
    '/api/openapi.json',
    '/docs/',
    '/dashboard',
    '/.well-known/oauth-authorization-server',
  ])('is nosniff on %s', async (url) => {
    const res = await svc.app.inject({ url });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('is nosniff on every route of the table, whatever the answer', async () => {
    for (const route of svc.app.routeTable) {
      for (const method of route.methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        const res = await svc.app.inject({ method: method as 'GET', url: concrete(route.url) });
        expect(res.headers['x-content-type-options'], `${method} ${route.url}`).toBe('nosniff');
      }
    }
  });
});

describe('Strict-Transport-Security', () => {
  it('is absent when the public URL is http', async () => {
    expect((await svc.app.inject({ url: '/healthz' })).headers['strict-transport-security']).toBeUndefined();
  });
  it.each(['/healthz', '/api/v1/merchant/me', '/docs/', '/no/such/path'])(
    'is set on %s when the public URL is https',
    async (url) => {
      const res = await tls.app.inject({ url });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    },
  );
});

describe('/docs', () => {
  it('forbids framing and allows only its own script, the inline bootstrap by its hash', async () => {
    const res = await svc.app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-inline' 'sha"); // scripts: no 'unsafe-inline'
    const scriptSrc = csp.split('; ').find((d) => d.startsWith('script-src'))!;
    expect(scriptSrc).not.toContain('unsafe-inline');
    const inline = [...res.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)];
    expect(inline.length).toBeGreaterThan(0);
    for (const [, code] of inline) {
      const hash = createHash('sha256').update(code!).digest('base64');
      expect(scriptSrc).toContain(`'sha256-${hash}'`);
    }
  });
  it('serves the reference loaded on first use, and answers a path it lacks in the envelope', async () => {
    const script = await svc.app.inject({ url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^application\/javascript/);
    expect(script.body.length).toBeGreaterThan(1_000_000);
    const document = await svc.app.inject({ url: '/docs/openapi.json' });
    expect(document.json<{ openapi: string }>().openapi).toMatch(/^3\./);
    const missing = await svc.app.inject({ url: '/docs/no-such-file' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json<{ error: { code: string } }>().error.code).toBe('not_found');
  });
  it('sends the policy with its script and the redirect too', async () => {
    for (const url of ['/docs', '/docs/js/scalar.js']) {
      const res = await svc.app.inject({ url });
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
  });
});

describe('Cache-Control: no-store', () => {
  it('is on every route under /api, /auth, /oauth and /internal, whatever the answer', async () => {
    const checked: string[] = [];
    for (const route of svc.app.routeTable) {
      if (!/^\/(api|auth|oauth|internal)\//.test(route.url) || route.url === '/api/openapi.json') continue;
      for (const method of route.methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        const res = await svc.app.inject({ method: method as 'GET', url: concrete(route.url) });
        expect(res.headers['cache-control'], `${method} ${route.url}`).toMatch(/no-store/);
        checked.push(`${method} ${route.url}`);
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it('is on the answers that carry a secret or a session', async () => {
    const answers = [];
    const login = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email: m.email, password: m.password },
    });
    expect(login.statusCode).toBe(200);
    answers.push(login);
    const signup = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/signup',
      payload: {
        merchant_name: 'Cache',
        email: `cache-${Date.now()}@example.com`,
        password: 'long enough pw',
      },
    });
    expect(signup.statusCode).toBe(201);
    answers.push(signup);
    const key = await createKey(svc.app, m);
    answers.push(
      await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: { ...m.auth, 'x-svc-mode': 'test' },
        payload: {},
      }),
      await svc.app.inject({
        method: 'POST',
        url: `/api/v1/merchant/api-keys/${key.id}/rotate`,
        headers: { ...m.auth, 'x-svc-mode': 'test' },
        payload: {},
      }),
    );
    const app = await createApp(svc.app, m);
    answers.push(
      await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/developer/apps',
        headers: { ...m.auth, 'x-svc-mode': 'test' },
        payload: {
          name: 'Cached',
          redirect_uris: ['https://app.example.com/cb'],
          allowed_scopes: ['public:*'],
        },
      }),
      await svc.app.inject({
        method: 'POST',
        url: `/api/v1/merchant/developer/apps/${app.id}/rotate-secret`,
        headers: { ...m.auth, 'x-svc-mode': 'test' },
        payload: {},
      }),
    );
    for (const res of answers) {
      expect(res.statusCode, res.body).toBeLessThan(300);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('leaves the cacheable public documents alone', async () => {
    const res = await svc.app.inject({ url: '/.well-known/oauth-authorization-server' });
    expect(res.headers['cache-control']).toBe('public, max-age=300');
  });
});
