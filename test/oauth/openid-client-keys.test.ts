// private_key_jwt and DPoP (API.md section 12.3) with openid-client 6.8.9, unmodified, as the second client
// library beside oauth4webapi (dpop.test.ts and private-key-jwt.test.ts): against a listening service, an app
// registers an RSA public key (WebCrypto, the library's own kind of key), and the library authenticates with
// assertions signed by it at the token, introspection and revocation endpoints while a DPoP handle of its own
// (ES256) binds every token: the code exchange, a public API call with a proof, a refresh, an app token and its
// installations. The only option is the one openid-client needs for an http:// issuer. PostgreSQL only, as
// the client matrix: the statements are those of the two files named above, which run on both databases.
import { createHash } from 'node:crypto';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createApp, getCode, type TestApp } from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let app: TestApp;
let config: openid.Configuration;
let signing: CryptoKeyPair;

const STORES = '/api/public/v1/stores';
const INSTALLATIONS = '/api/public/v1/app/installations';

/** RFC 7638 by hand, from the public JWK the library's key exports: what introspection's cnf.jkt must be. */
async function thumbprint(publicKey: CryptoKey): Promise<string> {
  const jwk = (await crypto.subtle.exportKey('jwk', publicKey)) as Record<string, string>;
  const members = jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'RSA' ? ['e', 'kty', 'n'] : [];
  const canonical = JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

const at = (path: string) => new URL(`${svc.url}${path}`);

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  dev = await signupMerchant(svc.app, 'Keyed Developer');
  shop = await signupMerchant(svc.app, 'Keyed Shop');
  app = await createApp(svc.app, dev, { allowed_scopes: ['public:read', 'public:write'] });
  signing = await crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  );
  const { kty, n, e } = (await crypto.subtle.exportKey('jwk', signing.publicKey)) as Record<string, string>;
  const registered = await svc.app.inject({
    method: 'PATCH',
    url: `/api/v1/merchant/apps/${app.id}`,
    headers: dev.auth,
    payload: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty, n, e, kid: 'rsa-1' }] } },
  });
  expect(registered.statusCode, registered.body).toBe(200);
  config = await openid.discovery(
    new URL(svc.url),
    app.client_id,
    { redirect_uris: [app.redirect_uris[0]!], response_types: ['code'] },
    openid.PrivateKeyJwt({ key: signing.privateKey, kid: 'rsa-1' }),
    { execute: [openid.allowInsecureRequests] },
  );
}, 120_000);
afterAll(async () => {
  await svc?.close();
});

describe('openid-client 6.8.9, unmodified, with PrivateKeyJwt and DPoP', () => {
  it('reads both from the metadata', () => {
    const metadata = config.serverMetadata();
    expect(metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toContain('RS256');
    expect(metadata.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('exchanges a code, calls with a proof, introspects, refreshes and revokes, every token bound', async () => {
    const keyPair = await openid.randomDPoPKeyPair('ES256');
    const dpop = openid.getDPoPHandle(config, keyPair);
    const { verifier, redirectTo } = await getCode(svc.app, app, shop);
    const tokens = await openid.authorizationCodeGrant(
      config,
      redirectTo,
      { pkceCodeVerifier: verifier, expectedState: redirectTo.searchParams.get('state')! },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type).toBe('dpop');
    expect(tokens).toMatchObject({ merchant_id: shop.merchantId, store_id: shop.storeId });

    const call = await openid.fetchProtectedResource(
      config,
      tokens.access_token,
      at(STORES),
      'GET',
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(call.status).toBe(200);
    expect(((await call.json()) as { data: { items: { id: string }[] } }).data.items[0]!.id).toBe(
      shop.storeId,
    );
    // The same token without the key is refused: a copy is useless.
    const copied = await fetch(at(STORES), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(copied.status).toBe(401);
    expect(copied.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_token"/);

    const looked = await openid.tokenIntrospection(config, tokens.access_token);
    expect(looked).toMatchObject({
      active: true,
      client_id: app.client_id,
      cnf: { jkt: await thumbprint(keyPair.publicKey) },
    });

    const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!, undefined, {
      DPoP: dpop,
    });
    expect(refreshed.token_type).toBe('dpop');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    const write = await openid.fetchProtectedResource(
      config,
      refreshed.access_token,
      at(`/api/public/v1/stores/${shop.storeId}/cart`),
      'POST',
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(write.status).toBe(201);

    await openid.tokenRevocation(config, refreshed.refresh_token!);
    // the library reads the 401's DPoP challenge and throws it
    const revoked = await openid
      .fetchProtectedResource(config, refreshed.access_token, at(STORES), 'GET', undefined, undefined, {
        DPoP: dpop,
      })
      .catch((err: unknown) => err);
    expect(revoked).toBeInstanceOf(openid.WWWAuthenticateChallengeError);
    expect(revoked).toMatchObject({
      status: 401,
      cause: [{ scheme: 'dpop', parameters: { error: 'invalid_token' } }],
    });
  });

  it('gets a bound app token and lists and leaves its installations with proofs', async () => {
    const dpop = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
    const { verifier, redirectTo } = await getCode(svc.app, app, shop);
    await openid.authorizationCodeGrant(
      config,
      redirectTo,
      { pkceCodeVerifier: verifier, expectedState: redirectTo.searchParams.get('state')! },
      undefined,
      { DPoP: dpop },
    );
    const appToken = await openid.clientCredentialsGrant(config, undefined, { DPoP: dpop });
    expect(appToken).toMatchObject({ token_type: 'dpop', scope: 'app:installations' });
    expect(appToken.refresh_token).toBeUndefined();

    const listed = await openid.fetchProtectedResource(
      config,
      appToken.access_token,
      at(INSTALLATIONS),
      'GET',
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(listed.status).toBe(200);
    const { items } = ((await listed.json()) as { data: { items: { grant_id: string; store_id: string }[] } })
      .data;
    expect(items.map((i) => i.store_id)).toEqual([shop.storeId]);
    const left = await openid.fetchProtectedResource(
      config,
      appToken.access_token,
      at(`${INSTALLATIONS}/${items[0]!.grant_id}`),
      'DELETE',
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(left.status).toBe(204);
  });

  it('is refused with the secret once the key is registered', async () => {
    const withSecret = await openid.discovery(
      new URL(svc.url),
      app.client_id,
      undefined,
      openid.ClientSecretBasic(app.client_secret),
      { execute: [openid.allowInsecureRequests] },
    );
    // a 401 with a Basic challenge, which the library throws with the answer
    const refused = await openid.clientCredentialsGrant(withSecret).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(openid.WWWAuthenticateChallengeError);
    const { status, response } = refused as openid.WWWAuthenticateChallengeError;
    expect(status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });
});
