// private_key_jwt (RFC 7523, API.md section 12.3): an app registers up to five public keys by PATCH and
// switches its token endpoint auth method; the token, revocation and introspection endpoints then take a
// client assertion signed by one of them (EdDSA, ES256, RS256: real keys made by node:crypto, and oauth4webapi
// unmodified) and refuse the client secret; every claim rule refuses what breaks it; a `jti` is used once
// across two services sharing the database; PATCH back to client_secret_basic restores the secret. Runs on
// both databases: the jti statement and its purge are this file's.
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { TestClock } from '../support/clock.ts';
import { sweepExpired } from '../../src/modules/oauth/index.ts';
import { basic, createApp, getCode, tokenCall, type TestApp } from './helpers.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let a: TestService;
let b: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
const clock = new TestClock();

type Alg = 'EdDSA' | 'ES256' | 'RS256';
interface Key {
  alg: Alg;
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

function makeKey(alg: Alg, kid = `${alg}-${randomUUID()}`): Key {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, use: 'sig' };
  return { alg, kid, privateKey: pair.privateKey, jwk };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signJwt(key: Key, payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = `${b64({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })}.${b64(payload)}`;
  const data = Buffer.from(input);
  const signature =
    key.alg === 'EdDSA'
      ? sign(null, data, key.privateKey)
      : key.alg === 'ES256'
        ? sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', data, key.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

const now = () => Math.floor(clock.now() / 1000);

function claims(client: TestApp, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: client.client_id,
    sub: client.client_id,
    aud: a.config.publicUrl,
    iat: now(),
    exp: now() + 60,
    jti: randomUUID(),
    ...extra,
  };
}

function assertionParams(assertion: string): Record<string, string> {
  return { client_assertion_type: ASSERTION_TYPE, client_assertion: assertion };
}

async function appTokenWith(assertion: string, svc = a) {
  return tokenCall(svc.app, { grant_type: 'client_credentials', ...assertionParams(assertion) });
}

async function patchApp(
  client: TestApp,
  body: Record<string, unknown>,
  path = `/api/v1/merchant/apps/${client.id}`,
) {
  return a.app.inject({ method: 'PATCH', url: path, headers: dev.auth, payload: body });
}

async function switchToKeys(client: TestApp, keys: Key[]) {
  const res = await patchApp(client, {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: keys.map((k) => k.jwk) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

beforeAll(async () => {
  a = await startTestService({ listen: true, clock });
  // the same issuer as a, as every process of one deployment has
  b = await startTestService({ shareWith: a, clock, env: { SVC_PUBLIC_URL: a.url } });
  dev = await signupMerchant(a.app, 'Key Developer');
  shop = await signupMerchant(a.app, 'Key Shop');
}, 120_000); // the first PGlite service of a worker migrates its template: a minute on a loaded machine
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('registering keys', () => {
  it('takes up to five public keys and the method, at the contract path and the developer path', async () => {
    const client = await createApp(a.app, dev);
    const keys = [makeKey('EdDSA'), makeKey('ES256'), makeKey('RS256')];
    const app = await switchToKeys(client, keys);
    expect(app.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(app.jwks.keys.map((k: { kid: string }) => k.kid)).toEqual(keys.map((k) => k.kid));
    const read = await a.app.inject({
      url: `/api/v1/merchant/developer/apps/${client.id}`,
      headers: dev.auth,
    });
    expect(read.json().data.token_endpoint_auth_method).toBe('private_key_jwt');
    const back = await patchApp(
      client,
      { token_endpoint_auth_method: 'client_secret_basic' },
      `/api/v1/merchant/developer/apps/${client.id}`,
    );
    expect(back.json().data.token_endpoint_auth_method).toBe('client_secret_basic');
  });

  it('refuses private keys, symmetric keys, other curves, short RSA keys, more than five, and no keys', async () => {
    const client = await createApp(a.app, dev);
    const ed = generateKeyPairSync('ed25519');
    const cases: [string, unknown, string][] = [
      ['a private key', { keys: [ed.privateKey.export({ format: 'jwk' })] }, 'jwks.keys[0]'],
      ['a symmetric key', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, 'jwks.keys[0]'],
      [
        'a P-384 key',
        { keys: [generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' })] },
        'jwks.keys[0]',
      ],
      [
        'RSA of 1024 bits',
        {
          keys: [
            makeKey('EdDSA').jwk,
            generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }),
          ],
        },
        'jwks.keys[1]',
      ],
      ['a broken key', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }] }, 'jwks.keys[0]'],
      ['a wrong alg', { keys: [{ ...makeKey('ES256').jwk, alg: 'RS256' }] }, 'jwks.keys[0]'],
    ];
    for (const [name, jwks, field] of cases) {
      const res = await patchApp(client, { token_endpoint_auth_method: 'private_key_jwt', jwks });
      expect([name, res.statusCode, res.json().error?.code]).toEqual([name, 400, 'validation_failed']);
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const six = { keys: Array.from({ length: 6 }, () => makeKey('EdDSA').jwk) };
    expect((await patchApp(client, { jwks: six })).statusCode).toBe(400);
    const none = await patchApp(client, { token_endpoint_auth_method: 'private_key_jwt' });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details[0].field).toBe('jwks');
    expect(
      (await patchApp(client, { token_endpoint_auth_method: 'private_key_jwt', jwks: null })).statusCode,
    ).toBe(400);
    // nothing changed: the secret still works
    const res = await tokenCall(a.app, { grant_type: 'client_credentials' }, basic(client));
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('the token endpoint with private_key_jwt', () => {
  it('takes an assertion signed by each registered key, and refuses the secret', async () => {
    const client = await createApp(a.app, dev);
    const keys = [makeKey('EdDSA'), makeKey('ES256'), makeKey('RS256')];
    await switchToKeys(client, keys);
    for (const key of keys) {
      const res = await appTokenWith(signJwt(key, claims(client)));
      expect([key.alg, res.statusCode, res.body]).toEqual([key.alg, 200, res.body]);
    }
    // the token endpoint's URL as audience, client_id beside the assertion, no kid in the header
    const res = await appTokenWith(
      signJwt(keys[0]!, claims(client, { aud: `${a.config.publicUrl}/api/public/v1/oauth/token` }), {
        kid: undefined,
      }),
    );
    expect(res.statusCode, res.body).toBe(200);

    const viaBasic = await tokenCall(a.app, { grant_type: 'client_credentials' }, basic(client));
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.json().error).toBe('invalid_client');
    const viaPost = await tokenCall(a.app, {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(viaPost.statusCode).toBe(401);
    expect(viaPost.json().error).toBe('invalid_client');
  });

  it('installs, refreshes, introspects and revokes with assertions', async () => {
    const client = await createApp(a.app, dev);
    const key = makeKey('ES256');
    await switchToKeys(client, [key]);
    const { code, verifier } = await getCode(a.app, client, shop);
    const exchanged = await tokenCall(a.app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect_uris[0]!,
      code_verifier: verifier,
      ...assertionParams(signJwt(key, claims(client))),
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const tokens = exchanged.json();
    const refreshed = await tokenCall(a.app, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      ...assertionParams(signJwt(key, claims(client))),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const fresh = refreshed.json();

    const introspectUrl = `${a.config.publicUrl}/api/public/v1/oauth/introspect`;
    const look = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/introspect',
      payload: {
        token: fresh.access_token,
        ...assertionParams(signJwt(key, claims(client, { aud: introspectUrl }))),
      },
    });
    expect(look.json()).toMatchObject({ active: true, client_id: client.client_id });
    const secretLook = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/introspect',
      headers: basic(client),
      payload: { token: fresh.access_token },
    });
    expect(secretLook.statusCode).toBe(401);

    const revokeUrl = `${a.config.publicUrl}/api/public/v1/oauth/revoke`;
    const revoked = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      payload: {
        token: fresh.refresh_token,
        ...assertionParams(signJwt(key, claims(client, { aud: revokeUrl }))),
      },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const stores = await a.app.inject({
      url: '/api/public/v1/stores',
      headers: { authorization: `Bearer ${fresh.access_token}` },
    });
    expect(stores.statusCode).toBe(401);
  });

  it('refuses an assertion that breaks any rule', async () => {
    const client = await createApp(a.app, dev);
    const other = await createApp(a.app, dev, { name: 'Other' });
    const key = makeKey('EdDSA');
    const stranger = makeKey('EdDSA', key.kid);
    await switchToKeys(client, [key]);
    const cases: [string, string][] = [
      ['another audience', signJwt(key, claims(client, { aud: 'https://elsewhere.example' }))],
      ['exp more than 5 minutes ahead', signJwt(key, claims(client, { exp: now() + 301 }))],
      ['expired', signJwt(key, claims(client, { exp: now() - 1 }))],
      ['no exp', signJwt(key, claims(client, { exp: undefined }))],
      ['no jti', signJwt(key, claims(client, { jti: undefined }))],
      ['sub not the client', signJwt(key, claims(client, { sub: other.client_id }))],
      ['iss another client', signJwt(key, claims(other, { sub: client.client_id }))],
      ['signed by an unregistered key', signJwt(stranger, claims(client))],
      ['an unknown kid', signJwt(key, claims(client), { kid: 'nope' })],
      ['another algorithm', signJwt(key, claims(client), { alg: 'ES256' })],
      ['alg none', `${b64({ alg: 'none' })}.${b64(claims(client))}.`],
      ['not a JWT', 'not.a.jwt'],
      ['nbf in the future', signJwt(key, claims(client, { nbf: now() + 120 }))],
    ];
    for (const [name, assertion] of cases) {
      const res = await appTokenWith(assertion);
      expect([name, res.statusCode, res.json().error]).toEqual([name, 401, 'invalid_client']);
    }
    const wrongType = await tokenCall(a.app, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:example:other',
      client_assertion: signJwt(key, claims(client)),
    });
    expect(wrongType.json().error).toBe('invalid_request');
    const both = await tokenCall(
      a.app,
      { grant_type: 'client_credentials', ...assertionParams(signJwt(key, claims(client))) },
      basic(client),
    );
    expect(both.json().error).toBe('invalid_request');
    // a client on its secret does not take assertions
    const onSecret = await appTokenWith(signJwt(key, claims(other)));
    expect(onSecret.json().error).toBe('invalid_client');
  });

  it('uses a jti once, across two services sharing the database', async () => {
    const client = await createApp(a.app, dev);
    const key = makeKey('RS256');
    await switchToKeys(client, [key]);
    const assertion = signJwt(key, claims(client));
    expect((await appTokenWith(assertion, a)).statusCode).toBe(200);
    const replay = await appTokenWith(assertion, b);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ error: 'invalid_client' });
    expect((await appTokenWith(assertion, a)).statusCode).toBe(401);
    // the same jti from another service first
    const second = signJwt(key, claims(client));
    expect((await appTokenWith(second, b)).statusCode).toBe(200);
    expect((await appTokenWith(second, a)).statusCode).toBe(401);
    // the ids are purged once their assertions expired
    clock.advance(301_000);
    try {
      expect(await sweepExpired(a.ctx)).toBeGreaterThanOrEqual(2);
    } finally {
      clock.advance(-301_000);
    }
  });

  it('goes back to the secret by PATCH', async () => {
    const client = await createApp(a.app, dev);
    const key = makeKey('EdDSA');
    await switchToKeys(client, [key]);
    expect((await tokenCall(a.app, { grant_type: 'client_credentials' }, basic(client))).statusCode).toBe(
      401,
    );
    const back = await patchApp(client, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(back.statusCode).toBe(200);
    expect((await tokenCall(a.app, { grant_type: 'client_credentials' }, basic(client))).statusCode).toBe(
      200,
    );
    // on b too: the app change reached its client cache
    expect((await tokenCall(b.app, { grant_type: 'client_credentials' }, basic(client))).statusCode).toBe(
      200,
    );
    const assertion = await appTokenWith(signJwt(key, claims(client)));
    expect(assertion.json().error).toBe('invalid_client');
  });

  it('is listed in the metadata with its algorithms', async () => {
    const res = await a.app.inject({ url: '/.well-known/oauth-authorization-server' });
    const metadata = res.json();
    for (const which of ['token', 'revocation', 'introspection']) {
      expect(metadata[`${which}_endpoint_auth_methods_supported`]).toContain('private_key_jwt');
      expect(metadata[`${which}_endpoint_auth_signing_alg_values_supported`]).toEqual([
        'EdDSA',
        'ES256',
        'RS256',
      ]);
    }
  });
});

describe('oauth4webapi, unmodified', () => {
  it('gets an app token with PrivateKeyJwt and an Ed25519 or P-256 key', async () => {
    clock.advance(Date.now() - clock.now()); // the library dates its assertions by the system's clock
    const issuer = new URL(a.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
    for (const algorithm of [{ name: 'Ed25519' }, { name: 'ECDSA', namedCurve: 'P-256' }] as const) {
      const client = await createApp(a.app, dev);
      const pair = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
      const jwk = { ...(await crypto.subtle.exportKey('jwk', pair.publicKey)), kid: 'k1' };
      delete (jwk as { key_ops?: unknown }).key_ops;
      delete (jwk as { ext?: unknown }).ext;
      const res = await patchApp(client, {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      });
      expect(res.statusCode, res.body).toBe(200);
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: client.client_id },
        oauth.PrivateKeyJwt({ key: pair.privateKey, kid: 'k1' }),
        new URLSearchParams(),
        { [oauth.allowInsecureRequests]: true },
      );
      const tokens = await oauth.processClientCredentialsResponse(
        as,
        { client_id: client.client_id },
        response,
      );
      expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'app:installations' });
    }
  });
});
