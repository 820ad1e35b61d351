// DPoP (RFC 9449, API.md section 12.3): a token request with a valid proof gets `token_type: DPoP` and an
// access token bound to the proof key's RFC 7638 thumbprint (introspection's `cnf.jkt`); the public API then
// takes it only as `Authorization: DPoP` with a proof for that call (htm, htu, iat within 60 s, jti once
// across two services, ath), and answers 401 with a `DPoP` challenge when it is sent as Bearer or with
// another key's proof. Real keys made by node:crypto; oauth4webapi unmodified for one whole flow. Runs on both
// databases: the binding, the proof ids and the bound look-up are this file's statements.
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { basic, createApp, getCode, tokenCall, type TestApp } from './helpers.ts';

let a: TestService;
let b: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let app: TestApp;

type Alg = 'EdDSA' | 'ES256' | 'RS256';
interface Key {
  alg: Alg;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
  jkt: string;
}

function makeKey(alg: Alg = 'ES256'): Key {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  // RFC 7638 3.2 by hand: the required members in order, no whitespace
  const members =
    jwk.kty === 'RSA' ? ['e', 'kty', 'n'] : jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : ['crv', 'kty', 'x'];
  const canonical = JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]])));
  const jkt = createHash('sha256').update(canonical).digest('base64url');
  return { alg, privateKey: pair.privateKey, jwk, jkt };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function proof(
  key: Key,
  method: string,
  path: string,
  extra: { accessToken?: string; claims?: Record<string, unknown>; header?: Record<string, unknown> } = {},
): string {
  const payload = {
    jti: randomUUID(),
    htm: method,
    htu: `${a.config.publicUrl}${path}`,
    iat: Math.floor(Date.now() / 1000),
    ...(extra.accessToken ? { ath: createHash('sha256').update(extra.accessToken).digest('base64url') } : {}),
    ...extra.claims,
  };
  const input = `${b64({ typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...extra.header })}.${b64(payload)}`;
  const data = Buffer.from(input);
  const signature =
    key.alg === 'EdDSA'
      ? sign(null, data, key.privateKey)
      : key.alg === 'ES256'
        ? sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', data, key.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

const TOKEN = '/api/public/v1/oauth/token';
const STORES = '/api/public/v1/stores';

async function boundInstall(key: Key, merchant = shop) {
  const { code, verifier } = await getCode(a.app, app, merchant);
  const res = await tokenCall(
    a.app,
    { grant_type: 'authorization_code', code, redirect_uri: app.redirect_uris[0]!, code_verifier: verifier },
    { ...basic(app), dpop: proof(key, 'POST', TOKEN) },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ access_token: string; refresh_token: string; token_type: string }>();
}

async function storesWith(svc: TestService, headers: Record<string, string>) {
  return svc.app.inject({ url: STORES, headers });
}

function dpopHeaders(key: Key, token: string, path = STORES, method = 'GET') {
  return { authorization: `DPoP ${token}`, dpop: proof(key, method, path, { accessToken: token }) };
}

beforeAll(async () => {
  a = await startTestService({ listen: true });
  // the same public URL as a, as every process of one deployment has
  b = await startTestService({ shareWith: a, env: { SVC_PUBLIC_URL: a.url } });
  dev = await signupMerchant(a.app, 'DPoP Developer');
  shop = await signupMerchant(a.app, 'DPoP Shop');
  app = await createApp(a.app, dev, { allowed_scopes: ['public:read', 'public:write'] });
}, 120_000); // the first PGlite service of a worker migrates its template: a minute on a loaded machine
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('the token endpoint with a DPoP proof', () => {
  it('answers token_type DPoP with an access token bound to the key, shown by introspection', async () => {
    for (const alg of ['EdDSA', 'ES256', 'RS256'] as const) {
      const key = makeKey(alg);
      const tokens = await boundInstall(key);
      expect(tokens.token_type).toBe('DPoP');
      const look = await a.app.inject({
        method: 'POST',
        url: '/api/public/v1/oauth/introspect',
        headers: basic(app),
        payload: { token: tokens.access_token },
      });
      expect(look.json()).toMatchObject({ active: true, cnf: { jkt: key.jkt } });
      expect((await storesWith(a, dpopHeaders(key, tokens.access_token))).statusCode).toBe(200);
    }
  });

  it('refuses a bad proof with 400 invalid_dpop_proof, and leaves a request without one Bearer', async () => {
    const key = makeKey();
    const { code, verifier } = await getCode(a.app, app, shop);
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirect_uris[0]!,
      code_verifier: verifier,
    };
    const wrongUrl = await tokenCall(a.app, form, { ...basic(app), dpop: proof(key, 'POST', STORES) });
    expect(wrongUrl.statusCode).toBe(400);
    expect(wrongUrl.json().error).toBe('invalid_dpop_proof');
    const plain = await tokenCall(a.app, form, basic(app));
    expect(plain.json().token_type).toBe('Bearer');
    const look = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/introspect',
      headers: basic(app),
      payload: { token: plain.json().access_token },
    });
    expect(look.json().cnf).toBeUndefined();
    expect((await storesWith(a, { authorization: `Bearer ${plain.json().access_token}` })).statusCode).toBe(
      200,
    );
    // an unbound token sent with the DPoP scheme is refused: it names no key
    const unbound = await storesWith(a, dpopHeaders(key, plain.json().access_token));
    expect(unbound.statusCode).toBe(401);
    expect(unbound.headers['www-authenticate']).toMatch(/^DPoP .*error="invalid_token"/);
  });

  it('binds each refresh’s access token to that request’s proof; the refresh token stays the client’s', async () => {
    const key = makeKey();
    const tokens = await boundInstall(key);
    const refreshed = await tokenCall(
      a.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { ...basic(app), dpop: proof(key, 'POST', TOKEN) },
    );
    expect(refreshed.json()).toMatchObject({ token_type: 'DPoP' });
    const fresh = refreshed.json().access_token as string;
    expect((await storesWith(a, dpopHeaders(key, fresh))).statusCode).toBe(200);
    expect((await storesWith(a, { authorization: `Bearer ${fresh}` })).statusCode).toBe(401);
  });

  it('is listed in the metadata', async () => {
    const res = await a.app.inject({ url: '/.well-known/oauth-authorization-server' });
    expect(res.json().dpop_signing_alg_values_supported).toEqual(['EdDSA', 'ES256', 'RS256']);
  });
});

describe('a bound token at the public API', () => {
  it('is refused as Bearer, with a DPoP challenge', async () => {
    const key = makeKey();
    const tokens = await boundInstall(key);
    const res = await storesWith(a, { authorization: `Bearer ${tokens.access_token}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_credential');
    expect(res.headers['www-authenticate']).toMatch(/^DPoP algs="[^"]+", error="invalid_token"$/);
  });

  it('needs a proof of its own key, for this method, URL, token and moment', async () => {
    const key = makeKey();
    const other = makeKey('EdDSA');
    const tokens = await boundInstall(key);
    const token = tokens.access_token;
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Record<string, string>][] = [
      ['no proof', { authorization: `DPoP ${token}` }],
      [
        'another key',
        { authorization: `DPoP ${token}`, dpop: proof(other, 'GET', STORES, { accessToken: token }) },
      ],
      [
        'another method',
        { authorization: `DPoP ${token}`, dpop: proof(key, 'POST', STORES, { accessToken: token }) },
      ],
      [
        'another URL',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', '/api/public/v1/payments/supported-countries', { accessToken: token }),
        },
      ],
      ['no ath', { authorization: `DPoP ${token}`, dpop: proof(key, 'GET', STORES) }],
      [
        'another token',
        { authorization: `DPoP ${token}`, dpop: proof(key, 'GET', STORES, { accessToken: `${token}x` }) },
      ],
      [
        'made 2 minutes ago',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', STORES, { accessToken: token, claims: { iat: now - 120 } }),
        },
      ],
      [
        'made in 2 minutes',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', STORES, { accessToken: token, claims: { iat: now + 120 } }),
        },
      ],
      [
        'no jti',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', STORES, { accessToken: token, claims: { jti: undefined } }),
        },
      ],
      [
        'another typ',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', STORES, { accessToken: token, header: { typ: 'JWT' } }),
        },
      ],
      [
        'a private key in the header',
        {
          authorization: `DPoP ${token}`,
          dpop: proof(key, 'GET', STORES, {
            accessToken: token,
            header: { jwk: key.privateKey.export({ format: 'jwk' }) },
          }),
        },
      ],
    ];
    for (const [name, headers] of cases) {
      const res = await storesWith(a, headers);
      expect([name, res.statusCode]).toEqual([name, 401]);
      expect([name, res.headers['www-authenticate']]).toEqual([
        name,
        expect.stringMatching(/^DPoP .*error="invalid_dpop_proof"/),
      ]);
    }
    // a query string is not part of htu
    const listed = await a.app.inject({
      url: `${STORES}?limit=5`,
      headers: dpopHeaders(key, token),
    });
    expect(listed.statusCode, listed.body).toBe(200);
  });

  it('takes each proof once, across two services sharing the database', async () => {
    const key = makeKey();
    const tokens = await boundInstall(key);
    const headers = dpopHeaders(key, tokens.access_token);
    expect((await storesWith(a, headers)).statusCode).toBe(200);
    const replay = await storesWith(b, headers);
    expect(replay.statusCode).toBe(401);
    expect(replay.headers['www-authenticate']).toMatch(/error="invalid_dpop_proof"/);
    expect((await storesWith(a, headers)).statusCode).toBe(401);
    expect((await storesWith(b, dpopHeaders(key, tokens.access_token))).statusCode).toBe(200);
  });

  it('writes with a proof of its method', async () => {
    const key = makeKey();
    const tokens = await boundInstall(key);
    const path = `/api/public/v1/stores/${shop.storeId}/cart`;
    const res = await a.app.inject({
      method: 'POST',
      url: path,
      headers: dpopHeaders(key, tokens.access_token, path, 'POST'),
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('binds an app token too', async () => {
    const key = makeKey();
    const res = await tokenCall(
      a.app,
      { grant_type: 'client_credentials' },
      { ...basic(app), dpop: proof(key, 'POST', TOKEN) },
    );
    expect(res.json()).toMatchObject({ token_type: 'DPoP', scope: 'app:installations' });
    const token = res.json().access_token as string;
    const path = '/api/public/v1/app/installations';
    expect(
      (await a.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(401);
    expect((await a.app.inject({ url: path, headers: dpopHeaders(key, token, path) })).statusCode).toBe(200);
  });
});

describe('oauth4webapi, unmodified', () => {
  it('installs, calls and refreshes with DPoP', async () => {
    const issuer = new URL(a.url);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }),
    );
    const client = { client_id: app.client_id };
    const auth = oauth.ClientSecretBasic(app.client_secret);
    const keyPair = await oauth.generateKeyPair('ES256');
    const dpop = oauth.DPoP({}, keyPair);
    const { code, verifier } = await getCode(a.app, app, shop);
    const callback = new URL(`${app.redirect_uris[0]}?code=${code}&iss=${encodeURIComponent(as.issuer)}`);
    const params = oauth.validateAuthResponse(as, client, callback, oauth.expectNoState);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      app.redirect_uris[0]!,
      verifier,
      { DPoP: dpop, ...options },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe('dpop');
    const call = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${a.url}${STORES}`),
      undefined,
      undefined,
      { DPoP: dpop, ...options },
    );
    expect(call.status).toBe(200);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, {
        DPoP: dpop,
        ...options,
      }),
    );
    expect(refreshed.token_type).toBe('dpop');
  });
});
