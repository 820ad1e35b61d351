// How the service serves the dashboard: deep links answer the SPA, assets are cached for good, the HTML is
// locked down (CSP, no framing) and says whether a session cookie came with it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant } from '../support/merchants.ts';
import { DIST_DIR } from '../../src/modules/dashboard/build-web.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

it('redirects / to the dashboard', async () => {
  const res = await svc.app.inject({ url: '/' });
  expect(res.statusCode).toBe(302);
  expect(res.headers.location).toBe('/dashboard');
});

it('answers the SPA for every view URL, never cached, with a strict CSP and no framing', async () => {
  for (const url of [
    '/dashboard',
    '/dashboard/signin',
    '/dashboard/settings/developers/webhooks/wh_x/deliveries/dlv_y',
  ]) {
    const res = await svc.app.inject({ url });
    expect(res.statusCode, url).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toContain('<div id="root"></div>');
    expect(res.body).toContain('<meta name="svc-session" content="0">');
  }
});

it('tells the page whether a session cookie came with it', async () => {
  const m = await signupMerchant(svc.app);
  const res = await svc.app.inject({
    url: '/dashboard/settings/developers/keys',
    cookies: { svc_session: m.token },
  });
  expect(res.body).toContain('<meta name="svc-session" content="1">');
});

it('serves hashed assets with a one-year immutable cache, and 404 for one that is gone', async () => {
  const js = readdirSync(join(DIST_DIR, 'assets')).find((f) => f.endsWith('.js'))!;
  const res = await svc.app.inject({ url: `/dashboard/assets/${js}` });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/javascript/);
  expect(res.headers['cache-control']).toContain('immutable');
  const gone = await svc.app.inject({ url: '/dashboard/assets/index-gone.js' });
  expect(gone.statusCode).toBe(404);
  expect(gone.json().error.code).toBe('not_found');
  const escape = await svc.app.inject({ url: '/dashboard/assets/..%2f..%2fpackage.json' });
  expect(escape.statusCode).toBe(404);
});
