// The authorization endpoint and consent (RFC 6749 4.1.1-4.1.2.1, RFC 7636, RFC 9207, RFC 9700 2.1, 4.1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { authorizeUrl, createApp, exchange, getCode, pkce, type TestApp } from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let client: TestApp;
const URI = 'https://app.example.com/cb?tenant=1';

beforeAll(async () => {
  svc = await startTestService();
  dev = await signupMerchant(svc.app, 'Dev <Co>');
  shop = await signupMerchant(svc.app, 'Corner Shop');
  client = await createApp(svc.app, dev, {
    name: 'Ship <b>fast</b>',
    redirect_uris: [URI, 'http://localhost:8080/cb'],
    allowed_scopes: ['public:read', 'public:write'],
  });
});
afterAll(async () => svc?.close());

const html = (merchant?: TestMerchant) => ({ ...(merchant?.auth ?? {}), accept: 'text/html' });

describe('requests that cannot be trusted to a redirect', () => {
  it.each([
    ['a trailing slash', 'https://app.example.com/cb/?tenant=1'],
    ['another case', 'https://app.example.com/CB?tenant=1'],
    ['an extra query parameter', 'https://app.example.com/cb?tenant=1&x=1'],
    ['a missing query', 'https://app.example.com/cb'],
    ['another host', 'https://evil.example.com/cb?tenant=1'],
  ])('a redirect_uri with %s gets the error page, no redirect', async (_what, uri) => {
    const res = await svc.app.inject({
      url: authorizeUrl(client, { redirect_uri: uri, code_challenge: pkce().challenge }),
      headers: html(shop),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Invalid redirect URI');
    expect(res.body).not.toContain(uri);
  });

  it('an unknown or missing client, or a missing redirect_uri, gets the error page', async () => {
    for (const params of [
      { client_id: 'svc_ca_unknown' },
      { client_id: undefined },
      { redirect_uri: undefined },
    ]) {
      const res = await svc.app.inject({
        url: authorizeUrl(client, { code_challenge: pkce().challenge, ...params }),
        headers: html(shop),
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});

describe('errors sent back to the app', () => {
  async function errorOf(params: Record<string, string | undefined>) {
    const res = await svc.app.inject({
      url: authorizeUrl(client, { redirect_uri: URI, ...params }),
      headers: html(shop),
    });
    expect(res.statusCode).toBe(302);
    const location = String(res.headers.location);
    expect(location.startsWith(`${URI}&`)).toBe(true);
    const url = new URL(location);
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(svc.config.publicUrl);
    expect(url.searchParams.get('error_description')).toBeTruthy();
    return url.searchParams.get('error');
  }

  it('requires PKCE with S256 and refuses plain', async () => {
    const { challenge } = pkce();
    expect(await errorOf({})).toBe('invalid_request');
    expect(await errorOf({ code_challenge: challenge, code_challenge_method: 'plain' })).toBe(
      'invalid_request',
    );
    expect(await errorOf({ code_challenge: challenge, code_challenge_method: undefined })).toBe(
      'invalid_request',
    );
    expect(await errorOf({ code_challenge: 'short', code_challenge_method: 'S256' })).toBe('invalid_request');
  });

  it('checks response_type and scope', async () => {
    const { challenge } = pkce();
    expect(await errorOf({ code_challenge: challenge, response_type: 'token' })).toBe(
      'unsupported_response_type',
    );
    expect(await errorOf({ code_challenge: challenge, response_type: undefined })).toBe('invalid_request');
    expect(await errorOf({ code_challenge: challenge, scope: 'admin' })).toBe('invalid_scope');
    const narrow = await createApp(svc.app, dev, { redirect_uris: [URI], allowed_scopes: ['public:read'] });
    const res = await svc.app.inject({
      url: authorizeUrl(narrow, { code_challenge: challenge, scope: 'public:*' }),
      headers: html(shop),
    });
    expect(new URL(String(res.headers.location)).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('the browser flow', () => {
  it('asks a signed-out merchant to sign in, then shows the consent page, and the form approves', async () => {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(client, { redirect_uri: URI, code_challenge: challenge, scope: 'public:read' });
    const signIn = await svc.app.inject({ url, headers: html() });
    expect(signIn.statusCode).toBe(200);
    expect(signIn.headers['x-frame-options']).toBe('DENY');
    expect(signIn.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(signIn.body).toContain('name="password"');
    expect(signIn.body).toContain('Ship &lt;b&gt;fast&lt;/b&gt;');

    const wrong = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        email: shop.email,
        password: 'wrong password!',
        return_to: url,
      }).toString(),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('wrong');

    const login = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: shop.email, password: shop.password, return_to: url }).toString(),
    });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe(url);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toMatch(/^svc_session=svc_mst_/);
    const session = cookie.split('=')[1]!;

    const page = await svc.app.inject({
      url,
      cookies: { svc_session: session },
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Ship &lt;b&gt;fast&lt;/b&gt;');
    expect(page.body).toContain('Dev &lt;Co&gt;');
    expect(page.body).toContain('Corner Shop');
    expect(page.body).toContain('See your store data');
    expect(page.body).not.toContain('Change your store data');
    expect(page.body).toMatch(/value="true"[^>]*>Approve|>Approve</);
    expect(page.body).toContain('Deny');
    const consentId = /name="consent_id" value="([^"]+)"/.exec(page.body)![1]!;
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;

    const forged = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      cookies: { svc_session: session },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        consent_id: consentId,
        approve: 'true',
        csrf_token: 'x'.repeat(43),
      }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    const crossSite = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      cookies: { svc_session: session },
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example.com' },
      payload: new URLSearchParams({ consent_id: consentId, approve: 'true', csrf_token: csrf }).toString(),
    });
    expect(crossSite.statusCode).toBe(403);

    const approve = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      cookies: { svc_session: session },
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.config.publicUrl },
      payload: new URLSearchParams({ consent_id: consentId, approve: 'true', csrf_token: csrf }).toString(),
    });
    expect(approve.statusCode).toBe(303);
    const back = new URL(String(approve.headers.location));
    expect(String(approve.headers.location).startsWith(`${URI}&code=svc_oac_`)).toBe(true);
    expect(back.searchParams.get('state')).toBe('st-123');
    expect(back.searchParams.get('iss')).toBe(svc.config.publicUrl);
    const tokens = await exchange(
      svc.app,
      { ...client, redirect_uris: [URI] },
      back.searchParams.get('code')!,
      verifier,
    );
    expect(tokens.scope).toBe('public:read');

    // single use: the same consent cannot be decided twice
    const twice = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      cookies: { svc_session: session },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ consent_id: consentId, approve: 'true', csrf_token: csrf }).toString(),
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.headers.location).toBeUndefined();
  });

  it('denying sends access_denied back, and is audited against the app', async () => {
    const res = await svc.app.inject({
      url: authorizeUrl(client, { redirect_uri: URI, code_challenge: pkce().challenge }),
      headers: { ...shop.auth, accept: 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      consent_id: expect.any(String),
      app: { id: client.id, name: 'Ship <b>fast</b>', client_id: client.client_id },
      scopes: ['public:*'],
      redirect_uri: URI,
    });
    const deny = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      headers: shop.auth,
      payload: { consent_id: data.consent_id, approve: false },
    });
    expect(deny.statusCode).toBe(200);
    const url = new URL(deny.json().data.redirect_to);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(svc.config.publicUrl);
    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.consent_denied',
      headers: shop.auth,
    });
    expect(logs.json().data.items[0]).toMatchObject({ entity_type: 'oauth_grant', entity_id: client.id });
  });

  it("refuses another merchant's consent, and a consent without a session", async () => {
    const res = await svc.app.inject({
      url: authorizeUrl(client, { redirect_uri: URI, code_challenge: pkce().challenge }),
      headers: { ...shop.auth, accept: 'application/json' },
    });
    const consentId = res.json().data.consent_id;
    const stranger = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      headers: dev.auth,
      payload: { consent_id: consentId, approve: true },
    });
    expect(stranger.statusCode).toBe(404);
    const anonymous = await svc.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/authorize/consent',
      payload: { consent_id: consentId, approve: true },
    });
    expect(anonymous.statusCode).toBe(401);
    const json = await svc.app.inject({
      url: authorizeUrl(client, { redirect_uri: URI, code_challenge: pkce().challenge }),
      headers: { accept: 'application/json' },
    });
    expect(json.statusCode).toBe(401);
    expect(json.json().error.code).toBe('unauthenticated');
  });

  it('records one grant per merchant and app, whatever the number of approvals', async () => {
    const uri = { redirect_uri: URI };
    await getCode(svc.app, { ...client, redirect_uris: [URI] }, shop, uri);
    await getCode(svc.app, { ...client, redirect_uris: [URI] }, shop, uri);
    const list = await svc.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
    const mine = list.json().data.items.filter((c: { app: { id: string } }) => c.app.id === client.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].id).toMatch(/^grant_/);
  });
});
