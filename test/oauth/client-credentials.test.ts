// App tokens and installations from the app (API.md section 12.3): grant_type=client_credentials gives an app
// token (Bearer, at most an hour, scope app:installations, no refresh token) that lists the app's active
// installations and uninstalls the app from one store, and opens no store's data. An uninstall stops the
// grant's tokens at once on both services sharing the database, records app.uninstalled with reason
// app_requested and the audit entry in the installing merchant's log. Runs on both databases: the app-token
// statements (insert, look-up, revocation, purge) are this file's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { TestClock } from '../support/clock.ts';
import { createKey } from '../api-keys/keys.ts';
import { sweepExpired } from '../../src/modules/oauth/index.ts';
import { basic, createApp, exchange, getCode, readWith, tokenCall, type TestApp } from './helpers.ts';

const INTERNAL = 'client-credentials-internal-token';
const INSTALLATIONS = '/api/public/v1/app/installations';

let a: TestService;
let b: TestService;
let dev: TestMerchant;
let app: TestApp;
const clock = new TestClock();

beforeAll(async () => {
  a = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL }, clock });
  b = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL }, shareWith: a });
  dev = await signupMerchant(a.app, 'App Developer');
  app = await createApp(a.app, dev, { allowed_scopes: ['public:read', 'public:write'] });
}, 120_000); // the first PGlite service of a worker migrates its template: a minute on a loaded machine
afterAll(async () => {
  await b?.close();
  await a?.close();
});

interface AppToken {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

async function appToken(client: TestApp = app, svc = a): Promise<AppToken> {
  const res = await tokenCall(svc.app, { grant_type: 'client_credentials' }, basic(client));
  expect(res.statusCode, res.body).toBe(200);
  return res.json<AppToken>();
}

async function install(merchant: TestMerchant, client: TestApp = app, scope = 'public:*') {
  const { code, verifier } = await getCode(a.app, client, merchant, { scope });
  return exchange(a.app, client, code, verifier);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function installations(svc: TestService, token: string, query = '') {
  return svc.app.inject({ url: `${INSTALLATIONS}${query}`, headers: bearer(token) });
}

describe('grant_type=client_credentials', () => {
  it('gives an app token: Bearer, at most an hour, scope app:installations, no refresh token', async () => {
    const res = await tokenCall(a.app, { grant_type: 'client_credentials' }, basic(app));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<Record<string, unknown>>();
    expect(body).toEqual({
      access_token: expect.stringMatching(/^svc_oat_/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'app:installations',
      mode: 'test',
    });
    // client_secret_post, and the scope named as the only one there is
    const post = await tokenCall(a.app, {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: 'app:installations',
    });
    expect(post.statusCode, post.body).toBe(200);
  });

  it('authenticates the client and gives no other scope', async () => {
    const wrong = await tokenCall(
      a.app,
      { grant_type: 'client_credentials' },
      basic({ ...app, client_secret: `${app.client_secret.slice(0, -4)}AAAA` }),
    );
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
    const none = await tokenCall(a.app, { grant_type: 'client_credentials' });
    expect(none.statusCode).toBe(401);
    const scoped = await tokenCall(
      a.app,
      { grant_type: 'client_credentials', scope: 'public:read' },
      basic(app),
    );
    expect(scoped.statusCode).toBe(400);
    expect(scoped.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('is listed in the metadata', async () => {
    const res = await a.app.inject({ url: '/.well-known/oauth-authorization-server' });
    expect(res.json().grant_types_supported).toContain('client_credentials');
  });
});

describe('an app token', () => {
  it("reads no store's data: every store route refuses it as an unknown credential", async () => {
    const shop = await signupMerchant(a.app, 'Shop of the refusals');
    await install(shop);
    const { access_token } = await appToken();
    for (const [method, url] of [
      ['GET', '/api/public/v1/stores'],
      ['GET', '/api/public/v1/payments/supported-countries'],
      ['POST', `/api/public/v1/stores/${shop.storeId}/cart`],
      ['POST', `/api/public/v1/stores/${dev.storeId}/cart`],
    ] as const) {
      const res = await a.app.inject({ method, url, headers: bearer(access_token) });
      expect([url, res.statusCode, res.json().error?.code]).toEqual([url, 401, 'invalid_credential']);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="svc", error="invalid_token"');
    }
  });

  it("is the only credential of the app's routes: a key or a store's access token lacks the scope", async () => {
    const shop = await signupMerchant(a.app, 'Shop of the scopes');
    const tokens = await install(shop);
    const key = await createKey(a.app, dev);
    for (const token of [tokens.access_token, key.secret_key, key.publishable_key]) {
      const res = await installations(a, token);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error.code).toBe('insufficient_scope');
      expect(res.headers['www-authenticate']).toContain('scope="app:installations"');
    }
    expect((await installations(a, '')).statusCode).toBe(401);
  });

  it('is introspected by its app, and revoked by it', async () => {
    const { access_token } = await appToken();
    const look = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/introspect',
      headers: basic(app),
      payload: { token: access_token },
    });
    expect(look.json()).toMatchObject({
      active: true,
      token_type: 'access_token',
      scope: 'app:installations',
      client_id: app.client_id,
      app_id: app.id,
      merchant_id: dev.merchantId,
      store_id: null,
      mode: 'test',
    });
    expect((await installations(b, access_token)).statusCode).toBe(200);
    const revoked = await a.app.inject({
      method: 'POST',
      url: '/api/public/v1/oauth/revoke',
      headers: basic(app),
      payload: { token: access_token },
    });
    expect(revoked.statusCode).toBe(200);
    expect((await installations(a, access_token)).statusCode).toBe(401);
    // the other service cached it: the revocation's notification drops it there
    await eventually(async () => (await installations(b, access_token)).statusCode === 401, {
      what: 'the other service to refuse the revoked app token',
    });
  });

  it('stops with its app, and is purged once expired', async () => {
    const doomed = await createApp(a.app, dev, { name: 'Doomed' });
    const { access_token } = await appToken(doomed);
    expect((await installations(a, access_token)).statusCode).toBe(200);
    const del = await a.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/apps/${doomed.id}`,
      headers: dev.auth,
    });
    expect(del.statusCode).toBe(204);
    expect((await installations(a, access_token)).statusCode).toBe(401);

    const short = await createApp(a.app, dev, { name: 'Short-lived' });
    const { access_token: old } = await appToken(short);
    clock.advance(3601_000);
    try {
      expect((await installations(a, old)).statusCode).toBe(401);
      expect(await sweepExpired(a.ctx)).toBeGreaterThanOrEqual(1);
    } finally {
      clock.advance(-3601_000);
    }
  });
});

describe('the app’s installations', () => {
  it('lists the active ones, newest first, with a cursor', async () => {
    const lister = await createApp(a.app, dev, { name: 'Lister', allowed_scopes: ['public:read'] });
    const first = await signupMerchant(a.app, 'First shop');
    const second = await signupMerchant(a.app, 'Second shop');
    await install(first, lister, 'public:read');
    await install(second, lister, 'public:read');
    const { access_token } = await appToken(lister);

    const all = await installations(a, access_token);
    expect(all.statusCode, all.body).toBe(200);
    const page = all.json().data;
    expect(page).toMatchObject({ count: 2, has_more: false, next_cursor: null });
    expect(page.items.map((i: { merchant_id: string }) => i.merchant_id)).toEqual([
      second.merchantId,
      first.merchantId,
    ]);
    expect(page.items[0]).toEqual({
      grant_id: expect.stringMatching(/^grant_/),
      merchant_id: second.merchantId,
      store_id: second.storeId,
      mode: 'test',
      scopes: ['public:read'],
      installed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
    });

    const one = (await installations(a, access_token, '?limit=1')).json().data;
    expect(one).toMatchObject({ count: 2, has_more: true, next_cursor: page.items[0].grant_id });
    const rest = (await installations(a, access_token, `?limit=1&starting_after=${one.next_cursor}`)).json()
      .data;
    expect(rest.items.map((i: { grant_id: string }) => i.grant_id)).toEqual([page.items[1].grant_id]);
    expect(rest.has_more).toBe(false);
    expect((await installations(a, access_token, '?limit=0')).statusCode).toBe(400);
  });

  it('uninstalls the app from one store: its tokens stop on every process, app.uninstalled says app_requested', async () => {
    const shop = await signupMerchant(a.app, 'Leaving shop');
    const stays = await signupMerchant(a.app, 'Staying shop');
    const tokens = await install(shop);
    const kept = await install(stays);
    // both services have the store's token cached before the uninstall
    expect(await readWith(a.app, tokens.access_token)).toBe(200);
    expect(await readWith(b.app, tokens.access_token)).toBe(200);
    const { access_token } = await appToken();
    const listed = (await installations(a, access_token, '?limit=200')).json().data.items as {
      grant_id: string;
      merchant_id: string;
    }[];
    const grantId = listed.find((i) => i.merchant_id === shop.merchantId)!.grant_id;

    const res = await b.app.inject({
      method: 'DELETE',
      url: `${INSTALLATIONS}/${grantId}`,
      headers: bearer(access_token),
    });
    expect(res.statusCode, res.body).toBe(204);
    expect(await readWith(b.app, tokens.access_token)).toBe(401);
    await eventually(async () => (await readWith(a.app, tokens.access_token)) === 401, {
      what: "the other service to refuse the uninstalled store's token",
    });
    const refresh = await tokenCall(
      a.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basic(app),
    );
    expect(refresh.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await readWith(a.app, kept.access_token)).toBe(200);

    const after = (await installations(a, access_token, '?limit=200')).json().data.items as {
      grant_id: string;
    }[];
    expect(after.map((i) => i.grant_id)).not.toContain(grantId);
    const connections = await a.app.inject({
      url: '/api/v1/merchant/developer/connections',
      headers: shop.auth,
    });
    expect(connections.json().data.items).toEqual([]);

    const events = await a.app.inject({
      url: '/api/v1/merchant/events?type=app.uninstalled',
      headers: shop.auth,
    });
    const [event] = events.json().data.items;
    expect(event.data).toMatchObject({
      grant_id: grantId,
      app_id: app.id,
      merchant_id: shop.merchantId,
      store_id: shop.storeId,
      reason: 'app_requested',
    });

    const logs = await a.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.connection_revoked',
      headers: shop.auth,
    });
    const [entry] = logs.json().data.items;
    expect(entry).toMatchObject({ entity_type: 'oauth_grant', entity_id: grantId });
    expect(JSON.parse(entry.metadata)).toMatchObject({
      actor: { type: 'app', id: app.id },
      reason: 'app_requested',
    });

    // gone: a second uninstall, like another app's installation or an unknown id, is not found
    const again = await a.app.inject({
      method: 'DELETE',
      url: `${INSTALLATIONS}/${grantId}`,
      headers: bearer(access_token),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('not_found');
  });

  it("never touches another app's installation", async () => {
    const other = await createApp(a.app, dev, { name: 'Other app' });
    const shop = await signupMerchant(a.app, 'Shop of another app');
    const tokens = await install(shop, other);
    const otherToken = (await appToken(other)).access_token;
    const grantId = (await installations(a, otherToken)).json().data.items[0].grant_id as string;
    const { access_token } = await appToken();
    const res = await a.app.inject({
      method: 'DELETE',
      url: `${INSTALLATIONS}/${grantId}`,
      headers: bearer(access_token),
    });
    expect(res.statusCode).toBe(404);
    expect(await readWith(a.app, tokens.access_token)).toBe(200);
    const mine = (await installations(a, access_token, '?limit=200')).json().data.items as {
      grant_id: string;
    }[];
    expect(mine.map((i) => i.grant_id)).not.toContain(grantId);
  });
});
