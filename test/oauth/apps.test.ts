// OAuth apps on the merchant interface (API.md section 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { basic, createApp, exchange, getCode, readWith, refresh, tokenCall } from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;

let skew = 0;

beforeAll(async () => {
  svc = await startTestService({ clock: { now: () => Date.now() + skew } });
  dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Shop');
});
afterAll(async () => svc?.close());

const APPS = '/api/v1/merchant/developer/apps';

describe('create, read, list', () => {
  it('shows the secret once, with the prefix of the mode', async () => {
    const created = await svc.app.inject({
      method: 'POST',
      url: APPS,
      headers: dev.auth,
      payload: {
        name: 'Ledger sync',
        description: 'Books orders',
        redirect_uris: ['https://ledger.example.com/cb', 'http://127.0.0.1:9000/cb', 'http://[::1]/cb'],
        allowed_scopes: ['public:read'],
      },
    });
    expect(created.statusCode).toBe(201);
    const app = created.json().data;
    expect(app).toEqual({
      id: expect.stringMatching(/^app_/),
      client_id: expect.stringMatching(/^svc_ca_/),
      client_secret: expect.stringMatching(/^svc_test_cs_/),
      name: 'Ledger sync',
      description: 'Books orders',
      redirect_uris: ['https://ledger.example.com/cb', 'http://127.0.0.1:9000/cb', 'http://[::1]/cb'],
      allowed_scopes: ['public:read'],
      mode: 'test',
      client_secret_last4: app.client_secret.slice(-4),
      token_endpoint_auth_method: 'client_secret_basic',
      jwks: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const read = await svc.app.inject({ url: `${APPS}/${app.id}`, headers: dev.auth });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.client_secret).toBeUndefined();
    expect(read.json().data.client_secret_last4).toBe(app.client_secret_last4);
    const list = await svc.app.inject({ url: APPS, headers: dev.auth });
    expect(list.json().data.items.some((a: { id: string }) => a.id === app.id)).toBe(true);
    expect(JSON.stringify(list.json())).not.toContain('svc_test_cs_');

    const live = await createApp(svc.app, dev, {}, 'live');
    expect(live.client_secret).toMatch(/^svc_live_cs_/);
    expect(live.mode).toBe('live');
    // modes never mix
    const inTest = await svc.app.inject({ url: `${APPS}/${live.id}`, headers: dev.auth });
    expect(inTest.statusCode).toBe(404);

    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=developer_app.created',
      headers: dev.auth,
    });
    expect(logs.json().data.items[0]).toMatchObject({ entity_type: 'developer_app', entity_id: app.id });
    expect(logs.json().data.items[0].metadata).not.toContain('svc_test_cs_');
  });

  it.each([
    ['http on a public host', 'http://example.com/cb'],
    ['a fragment', 'https://example.com/cb#x'],
    ['a relative URI', '/cb'],
    ['another scheme', 'javascript:alert(1)'],
  ])('refuses a redirect URI with %s', async (_what, uri) => {
    const res = await svc.app.inject({
      method: 'POST',
      url: APPS,
      headers: dev.auth,
      payload: {
        name: 'x',
        redirect_uris: ['https://ok.example.com/cb', uri],
        allowed_scopes: ['public:read'],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details[0].field).toBe('redirect_uris[1]');
  });

  it('refuses bad bodies: no URIs, eleven URIs, unknown or empty scopes, unknown fields', async () => {
    const base = { name: 'x', redirect_uris: ['https://ok.example.com/cb'], allowed_scopes: ['public:read'] };
    const eleven = Array.from({ length: 11 }, (_, i) => `https://ok.example.com/${i}`);
    for (const payload of [
      { ...base, redirect_uris: [] },
      { ...base, redirect_uris: eleven },
      { ...base, allowed_scopes: [] },
      { ...base, allowed_scopes: ['admin'] },
      { ...base, name: '' },
      { ...base, colour: 'red' },
    ]) {
      const res = await svc.app.inject({ method: 'POST', url: APPS, headers: dev.auth, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it("answers 404 for another merchant's app", async () => {
    const app = await createApp(svc.app, dev);
    for (const [method, url] of [
      ['GET', `${APPS}/${app.id}`],
      ['PATCH', `${APPS}/${app.id}`],
      ['DELETE', `${APPS}/${app.id}`],
      ['POST', `${APPS}/${app.id}/rotate-secret`],
    ] as const) {
      const res = await svc.app.inject({
        method,
        url,
        headers: shop.auth,
        payload: method === 'PATCH' ? { name: 'y' } : undefined,
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });
});

describe('changes that bind existing tokens at once', () => {
  async function install() {
    const app = await createApp(svc.app, dev);
    const { code, verifier } = await getCode(svc.app, app, shop);
    return { app, tokens: await exchange(svc.app, app, code, verifier) };
  }

  it('narrowing allowed_scopes narrows what existing tokens may do', async () => {
    const { app, tokens } = await install();
    const cart = () =>
      svc.app.inject({
        method: 'POST',
        url: `/api/public/v1/stores/${shop.storeId}/cart`,
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
    expect((await cart()).statusCode).toBe(201);
    const patch = await svc.app.inject({
      method: 'PATCH',
      url: `${APPS}/${app.id}`,
      headers: dev.auth,
      payload: { allowed_scopes: ['public:read'], name: 'Renamed' },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().data).toMatchObject({ name: 'Renamed', allowed_scopes: ['public:read'] });
    expect(patch.json().data.client_secret).toBeUndefined();
    const denied = await cart();
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('insufficient_scope');
    expect(await readWith(svc.app, tokens.access_token)).toBe(200);
  });

  it('rotation with a grace keeps the old secret until then, and tokens keep working', async () => {
    const { app, tokens } = await install();
    const res = await svc.app.inject({
      method: 'POST',
      url: `${APPS}/${app.id}/rotate-secret`,
      headers: dev.auth,
      payload: { previous_secret_expires_in: 1 },
    });
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data;
    expect(rotated.client_secret).toMatch(/^svc_test_cs_/);
    expect(rotated.client_secret).not.toBe(app.client_secret);
    expect(rotated.client_secret_last4).toBe(rotated.client_secret.slice(-4));
    expect(await readWith(svc.app, tokens.access_token)).toBe(200);
    const old = await refresh(svc.app, app, tokens.refresh_token);
    expect(old.statusCode).toBe(200);
    skew += 1100;
    const late = await refresh(svc.app, app, old.json().refresh_token);
    expect(late.statusCode).toBe(401);
    expect(late.json().error).toBe('invalid_client');
    const fresh = await refresh(
      svc.app,
      { ...app, client_secret: rotated.client_secret },
      old.json().refresh_token,
    );
    expect(fresh.statusCode).toBe(200);
  });

  it('rotation without grace stops the old secret at once and keeps every install, code and token', async () => {
    const { app, tokens } = await install();
    const pending = await getCode(svc.app, app, shop);
    const res = await svc.app.inject({
      method: 'POST',
      url: `${APPS}/${app.id}/rotate-secret`,
      headers: dev.auth,
    });
    expect(res.statusCode).toBe(200);
    const secret = res.json().data.client_secret as string;
    const next = { ...app, client_secret: secret };
    expect(await readWith(svc.app, tokens.access_token)).toBe(200);
    const old = await refresh(svc.app, app, tokens.refresh_token);
    expect(old.statusCode).toBe(401);
    expect(old.json().error).toBe('invalid_client');
    // the app's refresh token keeps working, with the new secret (API.md section 3)
    const renewed = await refresh(svc.app, next, tokens.refresh_token);
    expect(renewed.statusCode).toBe(200);
    expect(await readWith(svc.app, renewed.json().access_token)).toBe(200);
    expect(await readWith(svc.app, tokens.access_token)).toBe(200);
    // a code issued before the rotation is exchanged with the new secret
    const code = await tokenCall(
      svc.app,
      {
        grant_type: 'authorization_code',
        code: pending.code,
        redirect_uri: app.redirect_uris[0]!,
        code_verifier: pending.verifier,
      },
      basic(next),
    );
    expect(code.statusCode).toBe(200);
    expect(await readWith(svc.app, code.json().access_token)).toBe(200);
    // a new install with the new secret works
    const again = await getCode(svc.app, next, shop);
    expect(
      await readWith(svc.app, (await exchange(svc.app, next, again.code, again.verifier)).access_token),
    ).toBe(200);
    const logs = await svc.app.inject({
      url: `/api/v1/merchant/developer/logs?action=developer_app.secret_rotated&entity_id=${app.id}`,
      headers: dev.auth,
    });
    expect(logs.json().data.count).toBe(1);
    expect(JSON.parse(logs.json().data.items[0].metadata)).toMatchObject({ tokens_revoked: false });
  });

  it('deleting an app stops every grant, code and token of it', async () => {
    const { app, tokens } = await install();
    const pending = await getCode(svc.app, app, shop);
    const del = await svc.app.inject({ method: 'DELETE', url: `${APPS}/${app.id}`, headers: dev.auth });
    expect(del.statusCode).toBe(204);
    expect(await readWith(svc.app, tokens.access_token)).toBe(401);
    expect((await refresh(svc.app, app, tokens.refresh_token)).statusCode).toBe(401);
    const code = await tokenCall(
      svc.app,
      {
        grant_type: 'authorization_code',
        code: pending.code,
        redirect_uri: app.redirect_uris[0]!,
        code_verifier: pending.verifier,
      },
      basic(app),
    );
    expect(code.statusCode).toBe(401);
    expect((await svc.app.inject({ url: `${APPS}/${app.id}`, headers: dev.auth })).statusCode).toBe(404);
    const list = await svc.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
    expect(list.json().data.items.some((c: { app: { id: string } }) => c.app.id === app.id)).toBe(false);
  });
});

describe('connections', () => {
  it('lists the apps installed on a merchant and disconnects one at once', async () => {
    const app = await createApp(svc.app, dev, { name: 'Installed' });
    const { code, verifier } = await getCode(svc.app, app, shop);
    const tokens = await exchange(svc.app, app, code, verifier);
    const list = await svc.app.inject({ url: '/api/v1/merchant/developer/connections', headers: shop.auth });
    expect(list.statusCode).toBe(200);
    const conn = list.json().data.items.find((c: { app: { id: string } }) => c.app.id === app.id);
    expect(conn).toMatchObject({
      id: expect.stringMatching(/^grant_/),
      app: { id: app.id, name: 'Installed', client_id: app.client_id },
      scopes: ['public:*'],
      created_at: expect.any(String),
    });
    expect('last_used_at' in conn).toBe(true);
    // the developer does not see the shop's connection, and cannot delete it
    const devList = await svc.app.inject({
      url: '/api/v1/merchant/developer/connections',
      headers: dev.auth,
    });
    expect(devList.json().data.items.some((c: { id: string }) => c.id === conn.id)).toBe(false);
    const foreign = await svc.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/connections/${conn.id}`,
      headers: dev.auth,
    });
    expect(foreign.statusCode).toBe(404);

    // grants are in their app's mode: the live side neither lists nor deletes a test grant
    const live = await svc.app.inject({
      url: '/api/v1/merchant/developer/connections',
      headers: { ...shop.auth, 'x-svc-mode': 'live' },
    });
    expect(live.json().data.items.some((c: { id: string }) => c.id === conn.id)).toBe(false);
    const liveDelete = await svc.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/connections/${conn.id}`,
      headers: { ...shop.auth, 'x-svc-mode': 'live' },
    });
    expect(liveDelete.statusCode).toBe(404);

    const del = await svc.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/connections/${conn.id}`,
      headers: shop.auth,
    });
    expect(del.statusCode).toBe(204);
    expect(await readWith(svc.app, tokens.access_token)).toBe(401);
    expect((await refresh(svc.app, app, tokens.refresh_token)).statusCode).toBe(400);
    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=oauth.connection_revoked',
      headers: shop.auth,
    });
    expect(logs.json().data.items[0]).toMatchObject({ entity_type: 'oauth_grant', entity_id: conn.id });
  });
});
