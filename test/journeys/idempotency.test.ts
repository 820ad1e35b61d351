// Idempotency-Key on every POST of both interfaces (API.md section 1), per principal. The route-table walk
// covers every POST route, including ones added later: a stored answer (here the 4xx of an unknown id or a
// missing field, which is kept like any non-5xx) replays with the header, and the same key with another
// request is 409. The journeys below show that a replay makes no second object or change, and that two
// principals of one merchant never see each other's keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { bearer, createKey, type TestKey } from '../api-keys/keys.ts';
import { createApp, exchange, getCode } from '../oauth/helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

let svc: TestService;
let m: TestMerchant;
let key: TestKey;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app);
  key = await createKey(svc.app, m);
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await svc?.close();
});

type Headers = Record<string, string>;
const post = (url: string, headers: Headers, payload?: Record<string, unknown>) =>
  svc.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });

const auditCount = async (merchant: TestMerchant = m) =>
  (
    await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?limit=1',
      headers: merchant.auth,
    })
  ).json().data.count as number;

/** The POST routes that create or change something: every authenticated POST of both mounts. */
function postRoutes(app: FastifyInstance) {
  return app.routeTable.filter(
    (r) =>
      r.methods.has('POST') &&
      !r.anonymous &&
      (r.url.startsWith('/api/v1/merchant/') ||
        (r.url.startsWith('/api/public/v1/') && !r.url.startsWith('/api/public/v1/oauth/'))),
  );
}

describe('every POST route', () => {
  it('replays a stored answer with Idempotent-Replayed and refuses the key for another request', async () => {
    const routes = postRoutes(svc.app);
    expect(routes.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/api/v1/merchant/api-keys',
        '/api/v1/merchant/developer/apps',
        '/api/v1/merchant/webhooks',
        '/api/public/v1/stores/:storeID/cart',
      ]),
    );
    for (const route of routes) {
      // Signing out ends the principal: the same session can never come back for the replay.
      if (route.url.endsWith('/auth/logout')) continue;
      const url = route.url.replace(/:([A-Za-z]+)/g, 'nope_$1');
      const auth = route.url.startsWith('/api/public/') ? bearer(key.secret_key) : m.auth;
      const headers = { ...auth, 'idempotency-key': `walk ${route.url}` };
      const first = await post(url, headers, {});
      expect(first.statusCode, route.url).toBeLessThan(500);
      expect(first.headers['idempotent-replayed'], route.url).toBeUndefined();
      const replay = await post(url, headers, {});
      expect(replay.headers['idempotent-replayed'], route.url).toBe('true');
      expect(replay.statusCode, route.url).toBe(first.statusCode);
      expect(replay.body, route.url).toBe(first.body);
      const other = await post(`${url}?other=1`, headers, {});
      expect(other.statusCode, route.url).toBe(409);
      expect(other.json().error.code, route.url).toBe('idempotency_conflict');
    }
  });
});

describe('a replay makes no second object and no second change', () => {
  async function once(url: string, payload: Record<string, unknown> | undefined, changed?: object) {
    const headers = { ...m.auth, 'idempotency-key': `once ${url} ${Math.random()}` };
    const before = await auditCount();
    const first = await post(url, headers, payload);
    expect(first.statusCode, url).toBeLessThan(300);
    const afterFirst = await auditCount();
    expect(afterFirst, url).toBe(before + 1);
    const replay = await post(url, headers, payload);
    expect(replay.statusCode).toBe(first.statusCode);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    expect(await auditCount(), url).toBe(afterFirst);
    if (changed) {
      const conflict = await post(url, headers, changed as Record<string, unknown>);
      expect(conflict.statusCode, url).toBe(409);
      expect(conflict.json().error.code).toBe('idempotency_conflict');
    }
    return first.json().data;
  }

  it('key generation and rotation', async () => {
    const created = await once('/api/v1/merchant/api-keys', { name: 'Backend' }, { name: 'Other' });
    expect(created.secret_key).toMatch(/^svc_test_sk_/);
    const rotated = await once(
      `/api/v1/merchant/api-keys/${created.id}/rotate`,
      { previous_key_expires_in: 60 },
      { previous_key_expires_in: 120 },
    );
    expect(rotated.rotated_from).toBe(created.id);
    await once(`/api/v1/merchant/api-keys/${rotated.id}/revoke`, undefined);
  });

  it('app creation and secret rotation', async () => {
    const body = {
      name: 'Once',
      redirect_uris: ['https://app.example.com/cb'],
      allowed_scopes: ['public:read'],
    };
    const app = await once('/api/v1/merchant/developer/apps', body, { ...body, name: 'Twice' });
    expect(app.client_secret).toMatch(/^svc_test_cs_/);
    await once(
      `/api/v1/merchant/developer/apps/${app.id}/rotate-secret`,
      { previous_secret_expires_in: 0 },
      { previous_secret_expires_in: 60 },
    );
  });

  it('webhook creation, secret rotation, disabling and the test event (one delivery only)', async () => {
    const body = { url: `${rx.url}/once`, events: ['order.created'] };
    const wh = await once('/api/v1/merchant/webhooks', body, { ...body, events: ['order.paid'] });
    await once(`/api/v1/merchant/webhooks/${wh.id}/rotate-secret`, { previous_secret_expires_in: 0 });
    const received = rx.received.length;
    await once(`/api/v1/merchant/webhooks/${wh.id}/test`, {}, { event: 'order.created' });
    expect(rx.received.length).toBe(received + 1);
    const since = new Date(Date.now() - 3600_000).toISOString();
    await once(`/api/v1/merchant/webhooks/${wh.id}/recover`, { since }, { since, preview: false });
    const revealed = await once(
      `/api/v1/merchant/webhooks/${wh.id}/reveal-secret`,
      { password: m.password },
      { password: `${m.password}x` },
    );
    expect(revealed.secret).toMatch(/^whsec_/);
    await once(`/api/v1/merchant/webhooks/${wh.id}/disable`, undefined);
  });

  it('a cart on the public interface', async () => {
    const headers = { ...bearer(key.secret_key), 'idempotency-key': 'cart once' };
    const first = await post(`/api/public/v1/stores/${m.storeId}/cart`, headers);
    const replay = await post(`/api/public/v1/stores/${m.storeId}/cart`, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const rows = await svc.ctx.db
      .selectFrom('carts')
      .select('id')
      .where('id', '=', first.json().data.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('stores answers sealed: no secret is readable in the table', async () => {
    const rows = await svc.ctx.db.selectFrom('idempotency_keys').select('response_body').execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) if (row.response_body) expect(row.response_body).not.toMatch(/svc_|whsec_/);
  });
});

describe('per principal', () => {
  it('two apps installed by one merchant, sending the same key, get independent answers', async () => {
    const dev = await signupMerchant(svc.app, 'Dev');
    const tokens = [];
    for (const name of ['App X', 'App Z']) {
      const client = await createApp(svc.app, dev, { name });
      const { code, verifier } = await getCode(svc.app, client, m);
      tokens.push((await exchange(svc.app, client, code, verifier)).access_token);
    }
    const [x, z] = tokens as [string, string];
    const cart = (token: string) =>
      post(`/api/public/v1/stores/${m.storeId}/cart`, { ...bearer(token), 'idempotency-key': 'order-1' });
    const ax = await cart(x);
    const az = await cart(z);
    expect([ax.statusCode, az.statusCode]).toEqual([201, 201]);
    expect(az.headers['idempotent-replayed']).toBeUndefined();
    expect(az.json().data.id).not.toBe(ax.json().data.id);
    // Each replays its own answer, and X's key does not block Z's different request.
    expect((await cart(x)).json()).toEqual(ax.json());
    expect((await cart(z)).json()).toEqual(az.json());
  });

  it('two key pairs of one merchant, and the merchant user, have separate key spaces too', async () => {
    const other = await createKey(svc.app, m, { name: 'Other pair' });
    const headers = (token: string) => ({ ...bearer(token), 'idempotency-key': 'same' });
    const a = await post(`/api/public/v1/stores/${m.storeId}/cart`, headers(key.secret_key));
    const b = await post(`/api/public/v1/stores/${m.storeId}/cart`, headers(other.secret_key));
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().data.id).not.toBe(a.json().data.id);
    const user = await post('/api/v1/merchant/api-keys', { ...m.auth, 'idempotency-key': 'same' }, {});
    expect(user.statusCode).toBe(201);
    expect(user.headers['idempotent-replayed']).toBeUndefined();
  });

  it("one merchant's session never replays another merchant's answer", async () => {
    const n = await signupMerchant(svc.app);
    const a = await post('/api/v1/merchant/api-keys', { ...m.auth, 'idempotency-key': 'k1' }, {});
    const b = await post('/api/v1/merchant/api-keys', { ...n.auth, 'idempotency-key': 'k1' }, {});
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().data.id).not.toBe(a.json().data.id);
  });
});
