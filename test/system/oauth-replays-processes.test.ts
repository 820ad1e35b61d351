// A JWT id is used once across operating-system processes (API.md section 12.3): a client assertion
// (private_key_jwt, RFC 7523) and a DPoP proof (RFC 9449) accepted by process A are refused when replayed to
// process B on the same PostgreSQL, and the other way round. The two processes serve one public URL (A's, as a
// load balancer in front of both would), so a proof's htu and an assertion's aud hold on either: a refusal
// can only be the jti. Each replay is paired with a fresh JWT of the same key that B accepts.
// (pg project only: see vitest.config.ts. The in-process "two services sharing the database" cases stay in
// test/oauth/private-key-jwt.test.ts and test/oauth/dpop.test.ts.)
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, freePort, startProcess, stopAll } from '../support/processes.ts';

const REDIRECT = 'https://app.example.com/cb';
const TOKEN = '/api/public/v1/oauth/token';
const STORES = '/api/public/v1/stores';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;
/** The public URL both processes serve: the issuer, and what each htu names. */
let publicUrl: string;
let dev: string;
let shop: string;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function jws(privateKey: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>) {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

const ed25519 = () => {
  const pair = generateKeyPairSync('ed25519');
  return { privateKey: pair.privateKey, jwk: pair.publicKey.export({ format: 'jwk' }) };
};

async function signup(name: string): Promise<string> {
  const email = `replay-${randomBytes(6).toString('hex')}@example.com`;
  const res = await call(a, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: name, email, password: 'correct horse battery' },
  });
  return res.data.token as string;
}

const post = (
  base: string,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });

beforeAll(async () => {
  database = await freshDatabase();
  const ports = [await freePort(), await freePort()];
  expect(new Set(ports).size).toBe(2);
  publicUrl = `http://127.0.0.1:${ports[0]}`;
  [a, b] = (
    await Promise.all(
      ports.map((port) => startProcess(database.url!, { SVC_PUBLIC_URL: publicUrl, PORT: String(port) })),
    )
  ).map((p) => p.url) as [string, string];
  dev = await signup('Replay Dev');
  shop = await signup('Replay Shop');
}, 240_000); // two processes starting at once on a shared two-core host

afterAll(async () => {
  await stopAll();
  await database?.drop();
});

async function createApp() {
  const created = await call(a, '/api/v1/merchant/developer/apps', {
    method: 'POST',
    token: dev,
    body: { name: 'Replay app', redirect_uris: [REDIRECT], allowed_scopes: ['public:read'] },
  });
  expect(created.status).toBe(201);
  return created.data as { id: string; client_id: string; client_secret: string };
}

describe('a client assertion', () => {
  it('is taken once: a replay to the other process is refused, a fresh one is not', async () => {
    const app = await createApp();
    const key = ed25519();
    const patched = await call(a, `/api/v1/merchant/apps/${app.id}`, {
      method: 'PATCH',
      token: dev,
      body: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...key.jwk, kid: 'k1' }] } },
    });
    expect(patched.status).toBe(200);
    const assertion = () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: app.client_id, sub: app.client_id, aud: publicUrl, iat: now, exp: now + 60 };
      return jws(key.privateKey, { alg: 'EdDSA', kid: 'k1' }, { ...claims, jti: randomUUID() });
    };
    const appToken = (base: string, clientAssertion: string) =>
      post(base, TOKEN, {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: clientAssertion,
      });

    for (const [first, second] of [
      [a, b],
      [b, a],
    ] as const) {
      const used = assertion();
      expect((await appToken(first, used)).status).toBe(200);
      const replay = await appToken(second, used);
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ error: 'invalid_client' });
      // the same key, the same claims, a new jti: the second process takes it
      expect((await appToken(second, assertion())).status).toBe(200);
    }
  });
});

describe('a DPoP proof', () => {
  it('is taken once: a replay to the other process is refused, a fresh one is not', async () => {
    const app = await createApp();
    const key = ed25519();
    const proof = (method: string, path: string, accessToken?: string) =>
      jws(
        key.privateKey,
        { typ: 'dpop+jwt', alg: 'EdDSA', jwk: key.jwk },
        {
          jti: randomUUID(),
          htm: method,
          htu: `${publicUrl}${path}`,
          iat: Math.floor(Date.now() / 1000),
          ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}),
        },
      );

    // An installation of the shop, exchanged on A with a proof: the access token is bound to the key.
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      scope: 'public:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const consent = await call(a, `/api/public/v1/oauth/authorize?${query}`, { token: shop });
    const decided = await call(a, '/api/public/v1/oauth/authorize/consent', {
      method: 'POST',
      token: shop,
      body: { consent_id: consent.data.consent_id, approve: true },
    });
    const code = new URL(decided.data.redirect_to as string).searchParams.get('code')!;
    const tokenProof = proof('POST', TOKEN);
    const exchanged = await post(
      a,
      TOKEN,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: app.client_id,
        client_secret: app.client_secret,
      },
      { dpop: tokenProof },
    );
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('DPoP');
    // the token request's proof is spent too: B refuses it for an app token
    const tokenReplay = await post(
      b,
      TOKEN,
      { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
      { dpop: tokenProof },
    );
    expect(tokenReplay.status).toBe(400);
    expect(await tokenReplay.json()).toMatchObject({ error: 'invalid_dpop_proof' });

    const read = (base: string, dpop: string) =>
      fetch(`${base}${STORES}`, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop } });
    for (const [first, second] of [
      [a, b],
      [b, a],
    ] as const) {
      const used = proof('GET', STORES, tokens.access_token);
      expect((await read(first, used)).status).toBe(200);
      const replay = await read(second, used);
      expect(replay.status).toBe(401);
      expect(replay.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
      expect((await read(second, proof('GET', STORES, tokens.access_token))).status).toBe(200);
    }
  });
});
