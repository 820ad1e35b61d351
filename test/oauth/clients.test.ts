// Standard OAuth 2 client libraries, unmodified, against a listening service: oauth4webapi and
// openid-client v6 in OAuth 2 mode. The only option used is the one each needs for an http:// issuer.
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createApp, type TestApp } from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let app: TestApp;
const CALLBACK = 'http://localhost:3000/oauth/callback';

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Shop');
  app = await createApp(svc.app, dev, {
    redirect_uris: [CALLBACK],
    allowed_scopes: ['public:read', 'public:write'],
  });
});
afterAll(async () => svc?.close());

/** The merchant's part, as the dashboard does it: the JSON consent endpoint with the session. */
async function approveAsDashboard(authorizationUrl: URL, merchant: TestMerchant): Promise<URL> {
  const info = await fetch(authorizationUrl, { headers: { ...merchant.auth, accept: 'application/json' } });
  expect(info.status).toBe(200);
  const { data } = (await info.json()) as { data: { consent_id: string } };
  const decision = await fetch(`${svc.url}/api/public/v1/oauth/authorize/consent`, {
    method: 'POST',
    headers: { ...merchant.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ consent_id: data.consent_id, approve: true }),
  });
  expect(decision.status).toBe(200);
  return new URL(((await decision.json()) as { data: { redirect_to: string } }).data.redirect_to);
}

/** The merchant's part, as a browser does it: sign-in form, consent page, form post, 303 to the app. */
async function approveAsBrowser(authorizationUrl: URL, merchant: TestMerchant): Promise<URL> {
  const signIn = await fetch(authorizationUrl, { headers: { accept: 'text/html' } });
  expect(signIn.status).toBe(200);
  const signInPage = await signIn.text();
  const returnTo = /name="return_to" value="([^"]+)"/.exec(signInPage)![1]!.replace(/&amp;/g, '&');
  const login = await fetch(`${svc.url}/api/public/v1/oauth/authorize/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url },
    body: new URLSearchParams({ email: merchant.email, password: merchant.password, return_to: returnTo }),
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const consent = await fetch(new URL(login.headers.get('location')!, svc.url), {
    headers: { cookie, accept: 'text/html' },
  });
  const page = await consent.text();
  expect(consent.headers.get('x-frame-options')).toBe('DENY');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)![1]!;
  const approve = await fetch(`${svc.url}/api/public/v1/oauth/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: svc.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      consent_id: field('consent_id'),
      csrf_token: field('csrf_token'),
      approve: 'true',
    }),
  });
  expect(approve.status).toBe(303);
  return new URL(approve.headers.get('location')!);
}

async function createCart(accessToken: string) {
  return fetch(`${svc.url}/api/public/v1/stores/${shop.storeId}/cart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'x-svc-mode': 'test' },
  });
}

describe('oauth4webapi', () => {
  it('discovers, authorizes with PKCE, exchanges, creates a cart, refreshes and revokes', async () => {
    const issuer = new URL(svc.url);
    const discovery = await oauth.discoveryRequest(issuer, {
      algorithm: 'oauth2',
      [oauth.allowInsecureRequests]: true,
    });
    const as = await oauth.processDiscoveryResponse(issuer, discovery);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const c: oauth.Client = { client_id: app.client_id };
    const auth = oauth.ClientSecretBasic(app.client_secret);

    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', c.client_id);
    url.searchParams.set('redirect_uri', CALLBACK);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'public:read public:write');
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);

    const callback = await approveAsDashboard(url, shop);
    const params = oauth.validateAuthResponse(as, c, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, CALLBACK, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, c, response);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.access_token).toMatch(/^svc_oat_/);
    expect(tokens.refresh_token).toMatch(/^svc_ort_/);

    const cart = await createCart(tokens.access_token);
    expect(cart.status).toBe(201);
    expect(((await cart.json()) as { data: { id: string } }).data.id).toMatch(/^cart_/);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      c,
      await oauth.refreshTokenGrantRequest(as, c, auth, tokens.refresh_token!, {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await createCart(refreshed.access_token)).status).toBe(201);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, c, auth, refreshed.refresh_token!, {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    expect((await createCart(refreshed.access_token)).status).toBe(401);
  });

  it('surfaces the RFC errors to the library', async () => {
    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
    const c: oauth.Client = { client_id: app.client_id };
    const response = await oauth.refreshTokenGrantRequest(
      as,
      c,
      oauth.ClientSecretPost(app.client_secret),
      'svc_ort_x',
      {
        [oauth.allowInsecureRequests]: true,
      },
    );
    await expect(oauth.processRefreshTokenResponse(as, c, response)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});

describe('openid-client (OAuth 2 mode)', () => {
  it('discovers, authorizes through the browser pages, exchanges, refreshes and revokes', async () => {
    const config = await client.discovery(
      new URL(svc.url),
      app.client_id,
      { redirect_uris: [CALLBACK], response_types: ['code'] },
      client.ClientSecretPost(app.client_secret),
      { execute: [client.allowInsecureRequests] },
    );
    expect(config.serverMetadata().issuer).toBe(svc.url);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'public:write',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'openid-client-state',
    });
    const callback = await approveAsBrowser(url, shop);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'openid-client-state',
    });
    expect(tokens.scope).toBe('public:write');
    expect((await createCart(tokens.access_token)).status).toBe(201);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.expiresIn()).toBeGreaterThan(3500);
    await client.tokenRevocation(config, refreshed.access_token, { token_type_hint: 'access_token' });
    expect((await createCart(refreshed.access_token)).status).toBe(401);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).resolves.toBeDefined(); // grace
  });

  it('uses the OpenID discovery path too, with Basic authentication', async () => {
    const config = await client.discovery(
      new URL(svc.url),
      app.client_id,
      app.client_secret,
      client.ClientSecretBasic(app.client_secret),
      { execute: [client.allowInsecureRequests] },
    );
    await expect(client.refreshTokenGrant(config, 'svc_ort_unknown')).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
