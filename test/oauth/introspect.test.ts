// RFC 7662 introspection (API.md section 10): what each kind of caller may learn, the fields of an active
// answer for every credential kind, the same verdicts as the public auth hook (revoked, narrowed,
// disconnected), across two services sharing one database, and the revocation endpoint's JSON answer.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey, keyCall } from '../api-keys/keys.ts';
import { basic, createApp, exchange, getCode, readWith, type TestApp } from './helpers.ts';
import { eventually } from '../support/eventually.ts';

const INTERNAL = 'introspection-test-internal-token';
const PATH = '/api/public/v1/oauth/introspect';

let a: TestService;
let b: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let mine: TestApp;
let theirs: TestApp;

beforeAll(async () => {
  a = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL } });
  b = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL }, shareWith: a });
  dev = await signupMerchant(a.app, 'Dev Co');
  shop = await signupMerchant(a.app, 'Corner Shop');
  mine = await createApp(a.app, dev, { allowed_scopes: ['public:read', 'public:write'] });
  theirs = await createApp(a.app, dev, { name: 'Another app' });
}, 120_000); // the first PGlite service of a worker migrates its template: a minute on a loaded machine
afterAll(async () => {
  await b?.close();
  await a?.close();
});

type Headers = Record<string, string>;
const platform: Headers = { authorization: `Bearer ${INTERNAL}` };

async function introspect(svc: TestService, token: string, headers: Headers, json = false) {
  const res = await svc.app.inject({
    method: 'POST',
    url: PATH,
    headers: json
      ? { 'content-type': 'application/json', ...headers }
      : { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: json ? JSON.stringify({ token }) : new URLSearchParams({ token }).toString(),
  });
  return res;
}

async function answer(svc: TestService, token: string, headers: Headers = platform) {
  const res = await introspect(svc, token, headers);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json<Record<string, unknown>>();
}

async function install(app: TestApp, merchant = shop) {
  const { code, verifier } = await getCode(a.app, app, merchant);
  return exchange(a.app, app, code, verifier);
}

const now = () => Math.floor(Date.now() / 1000);

describe('a platform service (the internal token)', () => {
  it('sees every credential kind with the fields of API.md', async () => {
    const key = await createKey(a.app, shop, { scopes: ['public:write'] });
    const tokens = await install(mine);
    const t = now();

    const sk = await answer(a, key.secret_key);
    expect(sk).toEqual({
      active: true,
      token_type: 'secret_key',
      scope: 'public:write',
      merchant_id: shop.merchantId,
      store_id: shop.storeId,
      mode: 'test',
      iat: expect.any(Number),
      sub: shop.merchantId,
      key_id: key.id,
    });
    expect(Math.abs((sk.iat as number) - t)).toBeLessThanOrEqual(5);

    expect(await answer(a, key.publishable_key)).toEqual({
      ...sk,
      token_type: 'publishable_key',
      scope: 'public:read',
    });

    const at = await answer(a, tokens.access_token);
    expect(at).toEqual({
      active: true,
      token_type: 'access_token',
      scope: 'public:read public:write',
      client_id: mine.client_id,
      merchant_id: shop.merchantId,
      store_id: shop.storeId,
      mode: 'test',
      exp: expect.any(Number),
      iat: expect.any(Number),
      sub: shop.merchantId,
      app_id: mine.id,
    });
    expect((at.exp as number) - (at.iat as number)).toBe(3600);

    // Not credentials of the public interface: refresh tokens, client secrets, merchant sessions.
    for (const other of [tokens.refresh_token, mine.client_secret, shop.token]) {
      expect(await answer(a, other)).toEqual({ active: false });
    }
  });

  it('gives a key with an expiry its exp, and a live key its mode', async () => {
    const key = await createKey(a.app, shop);
    const rotated = await keyCall(a.app, shop, key.id, 'rotate', {
      payload: { previous_key_expires_in: 600 },
    });
    expect(rotated.statusCode).toBe(201);
    const old = await answer(a, key.secret_key);
    expect(old).toMatchObject({ active: true, scope: 'public:*', key_id: key.id });
    expect(Math.abs((old.exp as number) - (now() + 600))).toBeLessThanOrEqual(5);

    const live = await createKey(a.app, shop, { mode: 'live' });
    expect(await answer(a, live.publishable_key)).toMatchObject({
      active: true,
      mode: 'live',
      key_id: live.id,
    });
  });

  it('answers as the public hook would: narrowed scopes, a disconnected install', async () => {
    const app = await createApp(a.app, dev, { allowed_scopes: ['public:read', 'public:write'] });
    const tokens = await install(app);
    expect(await answer(a, tokens.access_token)).toMatchObject({ scope: 'public:read public:write' });
    const narrowed = await a.app.inject({
      method: 'PATCH',
      url: `/api/v1/merchant/developer/apps/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:read'] },
    });
    expect(narrowed.statusCode).toBe(200);
    expect(await answer(a, tokens.access_token)).toMatchObject({ active: true, scope: 'public:read' });

    const list = await a.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
    const grant = list.json().data.items.find((c: { app: { id: string } }) => c.app.id === app.id);
    const cut = await a.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/connections/${grant.id}`,
      headers: shop.auth,
    });
    expect(cut.statusCode).toBe(204);
    expect(await answer(a, tokens.access_token)).toEqual({ active: false });
    expect(await readWith(a.app, tokens.access_token)).toBe(401);
  });

  it('sees a key revoked through one service as inactive on the other within a second', async () => {
    const key = await createKey(a.app, shop);
    const tokens = await install(mine);
    for (const svc of [a, b]) {
      expect(await answer(svc, key.secret_key)).toMatchObject({ active: true }); // warm both caches
      expect(await answer(svc, tokens.access_token)).toMatchObject({ active: true });
    }
    expect((await keyCall(a.app, shop, key.id, 'revoke')).statusCode).toBe(200);
    const revoke = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(mine) },
      payload: new URLSearchParams({ token: tokens.access_token }).toString(),
    });
    expect(revoke.statusCode).toBe(200);
    const since = Date.now();
    expect(await answer(a, key.secret_key)).toEqual({ active: false }); // at once where it was revoked
    expect(await answer(a, tokens.access_token)).toEqual({ active: false });
    for (const token of [key.secret_key, key.publishable_key, tokens.access_token]) {
      await eventually(async () => !(await answer(b, token)).active, {
        timeoutMs: Math.max(0, 1000 - (Date.now() - since)),
        intervalMs: 10,
        what: `${token.slice(0, 12)} to be inactive on the other service`,
      });
    }
    expect(Date.now() - since).toBeLessThan(1000);
  });

  it('refuses a wrong internal token, and every bearer token when none is configured', async () => {
    const key = await createKey(a.app, shop);
    const wrong = await introspect(a, key.secret_key, { authorization: 'Bearer not-the-internal-token' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_token' });
    expect(wrong.headers['www-authenticate']).toContain('invalid_token');
    // A credential of the public interface is not the internal token either.
    const asKey = await introspect(a, key.secret_key, { authorization: `Bearer ${key.secret_key}` });
    expect(asKey.statusCode).toBe(401);

    const bare = await startTestService({ shareWith: a, env: { SVC_INTERNAL_TOKEN: '' } });
    try {
      const res = await introspect(bare, key.secret_key, platform);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'invalid_token' });
      // Clients still introspect there: the route exists without the internal token.
      expect((await introspect(bare, key.secret_key, basic(mine))).json()).toEqual({ active: false });
    } finally {
      await bare.close();
    }
  });
});

describe('an OAuth client', () => {
  it('sees its own access token, by Basic or in the body, form or JSON', async () => {
    const tokens = await install(mine);
    const viaBasic = await answer(a, tokens.access_token, basic(mine));
    expect(viaBasic).toMatchObject({
      active: true,
      token_type: 'access_token',
      client_id: mine.client_id,
      app_id: mine.id,
      merchant_id: shop.merchantId,
      store_id: shop.storeId,
    });
    const res = await a.app.inject({
      method: 'POST',
      url: PATH,
      payload: { token: tokens.access_token, client_id: mine.client_id, client_secret: mine.client_secret },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(viaBasic);
  });

  it("gets {active:false} for another app's token, a key, or its own refresh token", async () => {
    const other = await install(theirs);
    const own = await install(mine);
    const key = await createKey(a.app, shop);
    expect(await answer(a, other.access_token)).toMatchObject({ active: true }); // the platform sees it
    for (const token of [other.access_token, key.secret_key, key.publishable_key, own.refresh_token]) {
      const res = await introspect(a, token, basic(mine), true);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('{"active":false}');
    }
  });

  it('is refused with invalid_client when its authentication fails, and needs a token', async () => {
    const tokens = await install(mine);
    const wrong = await introspect(
      a,
      tokens.access_token,
      basic({ ...mine, client_secret: theirs.client_secret }),
    );
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
    const none = await introspect(a, tokens.access_token, {});
    expect(none.statusCode).toBe(401);
    const missing = await a.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(mine) },
      payload: '',
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('counts failed callers on the token endpoint limits, and a right secret still passes', async () => {
    const limited = await startTestService({ shareWith: a, env: { SVC_RATE_LIMIT: 'on' } });
    try {
      const bad = basic({ client_id: mine.client_id, client_secret: theirs.client_secret });
      const answers: number[] = [];
      for (let i = 0; i < 25; i++) answers.push((await introspect(limited, 'x', bad)).statusCode);
      // 20 free failures per app, then back-off: a failure answers 429 with Retry-After.
      expect(answers.slice(0, 20)).toEqual(Array(20).fill(401));
      expect(answers.slice(20)).toContain(429);
      const refused = await introspect(limited, 'x', bad);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
      // The same app's failures at the token endpoint meet the same budget.
      const token = await limited.app.inject({
        method: 'POST',
        url: '/api/public/v1/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...bad },
        payload: 'grant_type=refresh_token&refresh_token=x',
      });
      expect(token.statusCode).toBe(429);
      // Others' failures never refuse the right secret.
      const res = await introspect(limited, 'x', basic(mine));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ active: false });
    } finally {
      await limited.close();
    }
  });
});

describe('malformed tokens', () => {
  it('are inactive without a database lookup', async () => {
    const key = await createKey(a.app, shop);
    const tokens = await install(mine);
    const flip = (t: string) => t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
    const malformed = [flip(key.secret_key), flip(tokens.access_token), 'svc_oat_short', '', 'x'.repeat(300)];
    // A service whose credential tables are gone: only the prefix and checksum can answer without an error.
    const lone = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL } });
    try {
      await sql`alter table api_keys rename to api_keys_away`.execute(lone.ctx.db);
      await sql`alter table oauth_tokens rename to oauth_tokens_away`.execute(lone.ctx.db);
      for (const token of malformed.filter(Boolean)) {
        expect(await answer(lone, token)).toEqual({ active: false });
      }
      // Well-formed tokens do need the tables, so the probe above proves something.
      for (const token of [key.secret_key, tokens.access_token]) {
        expect((await introspect(lone, token, platform)).statusCode).toBe(500);
      }
    } finally {
      await lone.close();
    }
    for (const token of malformed.filter(Boolean)) {
      expect(await answer(a, token, basic(mine))).toEqual({ active: false });
    }
  });
});

describe('revocation (RFC 7009)', () => {
  it('answers 200 with {} as JSON', async () => {
    const tokens = await install(mine);
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(mine) },
      payload: new URLSearchParams({ token: tokens.refresh_token }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe('{}');
    expect(await answer(a, tokens.access_token)).toEqual({ active: false });
  });
});
