// Two operating-system processes (`node src/main.ts`) share one PostgreSQL database. An access token warm in
// process B's cache stops working there within one second of a disconnect or an app deletion made through
// process A, and is narrowed there within one second of a narrower consent; after a secret rotation without
// grace, B refuses the old secret at once while the install keeps working with the new one.
// (pg project only: see vitest.config.ts.)
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, startProcess, stopAll } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';

const REDIRECT = 'https://app.example.com/cb';
let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;

async function signup(name: string): Promise<string> {
  const email = `sys-${randomBytes(6).toString('hex')}@example.com`;
  const res = await call(a, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: name, email, password: 'correct horse battery' },
  });
  return res.data.token as string;
}

function consentUrl(clientId: string, scope: string, verifier: string): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return `/api/public/v1/oauth/authorize?${query}`;
}

async function approve(shop: string, clientId: string, scope: string, verifier: string): Promise<string> {
  const consent = await call(a, consentUrl(clientId, scope, verifier), { token: shop });
  const decided = await call(a, '/api/public/v1/oauth/authorize/consent', {
    method: 'POST',
    token: shop,
    body: { consent_id: consent.data.consent_id, approve: true },
  });
  return new URL(decided.data.redirect_to as string).searchParams.get('code')!;
}

const refreshOn = (base: string, app: { client_id: string }, secret: string, refreshToken: string) =>
  fetch(`${base}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: secret,
    }),
  });

async function install(dev: string, shop: string) {
  const created = await call(a, '/api/v1/merchant/developer/apps', {
    method: 'POST',
    token: dev,
    body: { name: 'Sys app', redirect_uris: [REDIRECT], allowed_scopes: ['public:*'] },
  });
  const app = created.data as { id: string; client_id: string; client_secret: string };
  const verifier = randomBytes(32).toString('base64url');
  const code = await approve(shop, app.client_id, 'public:*', verifier);
  const token = await fetch(`${a}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: app.client_id,
      client_secret: app.client_secret,
    }),
  });
  const tokens = (await token.json()) as { access_token: string; refresh_token: string };
  return { app, tokens };
}

const read = async (base: string, token: string) =>
  (await call(base, '/api/public/v1/payments/supported-countries', { token })).status;

/** Polls B every 20 ms, for a second at most, until it refuses `token`: the time that took. */
async function refusedWithinASecond(token: string): Promise<number> {
  const started = Date.now();
  await eventually(async () => (await read(b, token)) === 401, {
    timeoutMs: 1000,
    intervalMs: 20,
    what: 'process B to refuse the token',
  });
  return Date.now() - started;
}

let dev: string;
let shop: string;

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = (await Promise.all([startProcess(database.url!), startProcess(database.url!)])).map(
    (p) => p.url,
  ) as [string, string];
  dev = await signup('Dev');
  shop = await signup('Shop');
}, 120_000);

afterAll(async () => {
  await stopAll();
  await database?.drop();
});

describe('OAuth revocations across processes', () => {
  it('disconnecting the merchant', async () => {
    const { app, tokens } = await install(dev, shop);
    expect(await read(b, tokens.access_token)).toBe(200);
    const list = await call(a, '/api/v1/merchant/developer/connections', { token: shop });
    const grant = list.data.items.find((c: { app: { id: string } }) => c.app.id === app.id);
    expect(
      (await call(a, `/api/v1/merchant/developer/connections/${grant.id}`, { method: 'DELETE', token: shop }))
        .status,
    ).toBe(204);
    expect(await refusedWithinASecond(tokens.access_token)).toBeGreaterThanOrEqual(0);
  });

  it('rotating the secret without grace keeps the install; B refuses the old secret and takes the new', async () => {
    const { app, tokens } = await install(dev, shop);
    expect(await read(b, tokens.access_token)).toBe(200);
    const probe = 'svc_ort_000000000000000000000000000000000000';
    // client authenticated (and cached on B), token unknown
    expect((await refreshOn(b, app, app.client_secret, probe)).status).toBe(400);
    const rotated = await call(a, `/api/v1/merchant/developer/apps/${app.id}/rotate-secret`, {
      method: 'POST',
      token: dev,
    });
    expect(rotated.status).toBe(200);
    const secret = rotated.data.client_secret as string;
    const old = await eventually(
      async () => {
        const { status } = await refreshOn(b, app, app.client_secret, tokens.refresh_token);
        return status === 401 && status;
      },
      { timeoutMs: 1000, intervalMs: 20, what: 'process B to refuse the old secret' },
    );
    expect(old).toBe(401);
    expect(await read(b, tokens.access_token)).toBe(200);
    const renewed = await refreshOn(b, app, secret, tokens.refresh_token);
    expect(renewed.status).toBe(200);
    const pair = (await renewed.json()) as { access_token: string; refresh_token: string };
    expect(await read(b, pair.access_token)).toBe(200);
    expect((await refreshOn(a, app, secret, pair.refresh_token)).status).toBe(200);
  });

  it('a narrower consent made through A binds a token warm on B within a second', async () => {
    const { app, tokens } = await install(dev, shop);
    const cart = async (base: string) => {
      const me = await call(b, '/api/public/v1/stores', { token: tokens.access_token });
      const storeId = me.data.items[0].id as string;
      return (
        await call(base, `/api/public/v1/stores/${storeId}/cart`, {
          method: 'POST',
          token: tokens.access_token,
        })
      ).status;
    };
    expect(await cart(b)).toBe(201);
    await approve(shop, app.client_id, 'public:read', randomBytes(32).toString('base64url'));
    const status = await eventually(async () => (await cart(b)) === 403 && 403, {
      timeoutMs: 1000,
      intervalMs: 20,
      what: 'process B to refuse the narrowed scope',
    });
    expect(status).toBe(403);
    expect(await read(b, tokens.access_token)).toBe(200);
  });

  it('deleting the app', async () => {
    const { app, tokens } = await install(dev, shop);
    expect(await read(b, tokens.access_token)).toBe(200);
    expect(
      (await call(a, `/api/v1/merchant/developer/apps/${app.id}`, { method: 'DELETE', token: dev })).status,
    ).toBe(204);
    expect(await refusedWithinASecond(tokens.access_token)).toBeGreaterThanOrEqual(0);
  });
});
