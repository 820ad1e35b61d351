// App webhooks (API.md section 11.1), end to end on both databases: real consents and disconnects over HTTP,
// events ingested over HTTP, a second service on the same database (a second process) for "the next event",
// and a real receiver whose every request is verified with the official `standardwebhooks` library.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver, type Received } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit, type CreatedWebhook } from './helpers.ts';
import {
  connectionOf,
  createAppWebhook,
  install,
  newApp,
  setAllowedScopes,
  uninstall,
} from './app-helpers.ts';

let svc: TestService;
let other: TestService;
let rx: Receiver;
beforeAll(async () => {
  const env = { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN };
  svc = await startTestService({ workers: true, env });
  // The second process: events ingested there meet the grants as the first one changed them.
  other = await startTestService({ shareWith: svc, env });
  rx = await startReceiver();
});
afterAll(async () => {
  await other?.close();
  await svc?.close();
  await rx?.close();
});

interface Body {
  id: string;
  type: string;
  merchant_id: string;
  app_id?: string;
  grant_id?: string;
  store_id?: string;
  data: Record<string, unknown>;
}

const at = (path: string) => (r: Received) => r.path === path;

/**
 * Every request at `path` so far, each verified with the webhook's secret. A service whose clock runs `aheadMs`
 * ahead signs with its own time, which the library's check refuses against the wall clock: its signature is
 * then checked as the library makes it, and its timestamp against that clock.
 */
function verified(wh: CreatedWebhook, path: string, aheadMs = 0): Body[] {
  const verifier = new Webhook(wh.secret);
  return rx.received.filter(at(path)).map((r) => {
    const headers = r.headers as Record<string, string>;
    if (aheadMs === 0) return verifier.verify(r.body, headers) as Body;
    const sentAt = new Date(Number(headers['webhook-timestamp']) * 1000);
    expect(Math.abs(sentAt.getTime() - (Date.now() + aheadMs))).toBeLessThan(300_000);
    expect(headers['webhook-signature']!.split(' ')).toContain(
      verifier.sign(headers['webhook-id']!, sentAt, r.body),
    );
    return JSON.parse(r.body) as Body;
  });
}

async function arrived(wh: CreatedWebhook, path: string, n: number, aheadMs = 0): Promise<Body[]> {
  await rx.waitFor(n, 10_000, at(path));
  return verified(wh, path, aheadMs);
}

const ofType = (bodies: Body[], type: string) => bodies.filter((b) => b.type === type);

/** How many deliveries a webhook has: each is recorded in the transaction of its event. */
async function deliveryCount(owner: TestMerchant, webhookId: string): Promise<number> {
  const res = await svc.app.inject({ url: `${base}/${webhookId}/deliveries`, headers: owner.auth });
  return res.json<{ data: { count: number } }>().data.count;
}

/** A fresh path on the shared receiver, so that each test counts its own requests. */
let paths = 0;
const path = (name: string) => `/${name}-${++paths}`;

describe("an installed store's events reach the app", () => {
  it("with app_id, grant_id, store_id and the installing merchant; never the owner's or a stranger's", async () => {
    const dev = await signupMerchant(svc.app, 'App developer');
    const shop = await signupMerchant(svc.app, 'Installing shop');
    const stranger = await signupMerchant(svc.app, 'Other shop');
    const app = await newApp(svc, dev);
    const p = path('app');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, ['order.created']);
    expect(wh.app_id).toBe(app.id);
    const ownPath = path('own');
    const own = await createWebhook(svc, dev, `${rx.url}${ownPath}`, ['order.created']);
    const grantId = await install(svc, app, shop, 'public:read');

    const fromShop = await emit(svc, shop, 'order.created', { id: 'ord_shop' });
    expect(fromShop.deliveries).toBe(1);
    const fromOwner = await emit(svc, dev, 'order.created', { id: 'ord_owner' });
    expect(fromOwner.deliveries).toBe(1); // the owner's own webhook only
    expect((await emit(svc, stranger, 'order.created', { id: 'ord_stranger' })).deliveries).toBe(0);

    const [body] = await arrived(wh, p, 1);
    expect(body).toMatchObject({
      id: fromShop.id,
      type: 'order.created',
      merchant_id: shop.merchantId,
      app_id: app.id,
      grant_id: grantId,
      store_id: shop.storeId,
      data: { id: 'ord_shop' },
    });
    const [mine] = await arrived(own, ownPath, 1);
    expect(mine).toMatchObject({ id: fromOwner.id, merchant_id: dev.merchantId });
    expect(mine).not.toHaveProperty('app_id');

    // The developer reads the delivery with the exact bytes sent; the shop never sees the app's endpoint.
    const list = await svc.app.inject({ url: `${base}/${wh.id}/deliveries`, headers: dev.auth });
    const [d] = list.json<{ data: { items: { id: string; event_id: string }[] } }>().data.items;
    expect(d!.event_id).toBe(fromShop.id);
    const one = await svc.app.inject({ url: `${base}/${wh.id}/deliveries/${d!.id}`, headers: dev.auth });
    expect(one.json<{ data: { payload: string } }>().data.payload).toBe(rx.received.find(at(p))!.body);
    const event = await svc.app.inject({ url: `/api/v1/merchant/events/${fromShop.id}`, headers: shop.auth });
    expect(event.json<{ data: { deliveries: unknown[] } }>().data.deliveries).toEqual([]);
    expect(event.body).not.toContain(rx.url);
    const hook = await svc.app.inject({ url: `${base}/${wh.id}`, headers: shop.auth });
    expect(hook.statusCode).toBe(404);

    // The shop's connection names what the app receives from it, never where.
    const connection = await connectionOf(svc, shop, app);
    expect(connection!.events).toEqual(['order.created']);
    expect(JSON.stringify(connection)).not.toContain(rx.url);

    // GET /webhooks?app_id= lists the app's webhooks only.
    const listed = await svc.app.inject({ url: `${base}?app_id=${app.id}`, headers: dev.auth });
    expect(listed.json<{ data: { items: { id: string }[] } }>().data.items.map((w) => w.id)).toEqual([wh.id]);
  });

  it('refuses an app of another account or of the other mode', async () => {
    const dev = await signupMerchant(svc.app);
    const someoneElse = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const create = (m: TestMerchant, mode: string) =>
      svc.app.inject({
        method: 'POST',
        url: base,
        headers: { ...m.auth, 'x-svc-mode': mode },
        payload: { url: 'https://hooks.example.com/nope', events: ['order.created'], app_id: app.id },
      });
    for (const res of [await create(someoneElse, 'test'), await create(dev, 'live')]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toEqual([{ field: 'app_id', issue: expect.any(String) }]);
    }
  });

  it('signs a test delivery of an app webhook with its own secret, naming the app', async () => {
    const dev = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const p = path('app-test');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, ['order.paid']);
    const res = await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/test`, headers: dev.auth });
    expect(res.json()).toMatchObject({ data: { status: 'succeeded', test: true } });
    const [body] = await arrived(wh, p, 1);
    expect(body).toMatchObject({ type: 'order.paid', app_id: app.id, grant_id: null, store_id: null });
  });
});

describe("the webhook routes work on an app's webhook unchanged", () => {
  it('disable, enable, rotate the secret, and retry: the retry sends the same bytes', async () => {
    const dev = await signupMerchant(svc.app);
    const shop = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const p = path('routes');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, ['order.created']);
    await install(svc, app, shop, 'public:read');
    const post = (action: string) =>
      svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/${action}`, headers: dev.auth });

    expect((await post('disable')).statusCode).toBe(200);
    expect((await emit(svc, shop)).deliveries).toBe(0);
    expect((await post('enable')).statusCode).toBe(200);
    const rotated = await post('rotate-secret');
    expect(rotated.statusCode).toBe(200);
    const fresh = { ...wh, secret: rotated.json<{ data: { secret: string } }>().data.secret };
    expect(fresh.secret).not.toBe(wh.secret);

    const ev = await emit(svc, shop);
    expect(ev.deliveries).toBe(1);
    const [body] = await arrived(fresh, p, 1);
    expect(body).toMatchObject({ id: ev.id, app_id: app.id, store_id: shop.storeId });
    const d = await eventually(async () => (await deliveries(svc, dev, wh.id, '?status=succeeded')).items[0]);
    const retried = await post(`deliveries/${d.id}/retry`);
    expect(retried.statusCode).toBe(202);
    const [first, second] = await rx.waitFor(2, 10_000, at(p));
    expect(second!.headers['webhook-id']).toBe(ev.id);
    expect(second!.body).toBe(first!.body);
    expect(verified(fresh, p)).toHaveLength(2);
  });
});

describe('scope changes, reinstalls and uninstalls hold for the next event on another process', () => {
  it('narrower re-consent, allowed_scopes narrowed, uninstall', async () => {
    const dev = await signupMerchant(svc.app);
    const shop = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const p = path('scoped');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, [
      'order.created',
      'app.scopes_updated',
    ]);
    const next = async () => (await emit(other, shop, 'order.created')).deliveries;

    const grantId = await install(svc, app, shop, 'public:*');
    expect(await next()).toBe(1);
    await install(svc, app, shop, 'public:write'); // a new consent without read
    expect(await next()).toBe(0);
    expect((await connectionOf(other, shop, app))!.events).toEqual(['app.scopes_updated']);
    await install(svc, app, shop, 'public:read public:write');
    expect(await next()).toBe(1);

    await setAllowedScopes(svc, dev, app, ['public:write']); // the app may no longer read anything
    expect(await next()).toBe(0);
    await setAllowedScopes(svc, dev, app, ['public:*']);
    expect(await next()).toBe(1);

    await uninstall(svc, shop, grantId);
    expect(await next()).toBe(0);
    expect(await connectionOf(other, shop, app)).toBeUndefined();

    const updates = ofType(await arrived(wh, p, 7), 'app.scopes_updated');
    // Sent concurrently, so compared regardless of arrival order.
    const told = updates.map((u) => JSON.stringify([u.data.cause, u.data.previous_scopes, u.data.scopes]));
    expect(told.sort()).toEqual(
      [
        ['consent', ['public:read', 'public:write'], ['public:write']],
        ['consent', ['public:write'], ['public:read', 'public:write']],
        ['allowed_scopes', ['public:read', 'public:write'], ['public:write']],
        ['allowed_scopes', ['public:write'], ['public:read', 'public:write']],
      ]
        .map((t) => JSON.stringify(t))
        .sort(),
    );
    expect(new Set(updates.map((u) => u.grant_id))).toEqual(new Set([grantId]));
    expect(ofType(verified(wh, p), 'order.created')).toHaveLength(3);
  });
});

describe('lifecycle events', () => {
  it("fire once each, to the app and to the merchant's own subscribed webhooks, never to another app", async () => {
    const dev = await signupMerchant(svc.app);
    const shop = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const bystander = await newApp(svc, dev);
    const lifecycle = ['app.installed', 'app.scopes_updated', 'app.uninstalled'];
    const p = path('lifecycle');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, lifecycle);
    const q = path('bystander');
    const bystanderHook = await createAppWebhook(svc, dev, bystander, `${rx.url}${q}`, lifecycle);
    const s = path('shop-own');
    const shopHook = await createWebhook(svc, shop, `${rx.url}${s}`, lifecycle);
    await install(svc, bystander, shop, 'public:read');
    await arrived(bystanderHook, q, 1);

    const grantId = await install(svc, app, shop, 'public:read');
    await install(svc, app, shop, 'public:read'); // the same scopes again: nothing changed, nothing told
    await install(svc, app, shop, 'public:*');
    await uninstall(svc, shop, grantId);

    const told = await arrived(wh, p, 3);
    const byType = new Map(told.map((b) => [b.type, b]));
    expect([...byType.keys()].sort()).toEqual(lifecycle);
    for (const b of told) {
      expect(b).toMatchObject({ merchant_id: shop.merchantId, app_id: app.id, grant_id: grantId });
      expect(b.data).toMatchObject({
        id: grantId,
        grant_id: grantId,
        app_id: app.id,
        merchant_id: shop.merchantId,
        store_id: shop.storeId,
      });
    }
    expect(byType.get('app.installed')!.data.scopes).toEqual(['public:read']);
    expect(byType.get('app.scopes_updated')!.data).toMatchObject({
      scopes: ['public:read', 'public:write'],
      previous_scopes: ['public:read'],
      cause: 'consent',
    });
    expect(byType.get('app.uninstalled')!.data).toMatchObject({ reason: 'merchant_disconnected' });
    // The shop's own webhook hears both apps' installs (the app named in `data`, not in the envelope).
    const shopHeard = await arrived(shopHook, s, 4);
    expect(shopHeard.map((b) => `${b.type} ${String(b.data.app_id)}`).sort()).toEqual(
      [`app.installed ${bystander.id}`, ...lifecycle.map((t) => `${t} ${app.id}`)].sort(),
    );
    expect(shopHeard.every((b) => b.app_id === undefined)).toBe(true);
    // Deliveries are recorded with their event: once each, and none of this app's for the bystander.
    expect(await deliveryCount(dev, wh.id)).toBe(3);
    expect(await deliveryCount(dev, bystanderHook.id)).toBe(1);
    expect(await deliveryCount(shop, shopHook.id)).toBe(4);
  });

  it('are recorded by the service alone: ingestion refuses them', async () => {
    const shop = await signupMerchant(svc.app);
    for (const type of ['app.installed', 'app.uninstalled', 'store.redact']) {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/internal/v1/events',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}` },
        payload: { merchant_id: shop.merchantId, mode: 'test', type, data: {} },
      });
      expect(res.statusCode, type).toBe(400);
      expect(res.json().error.details[0].field).toBe('type');
    }
  });
});

describe('privacy events', () => {
  it('reach every installed app whatever its scopes; store data only those that may read', async () => {
    const shop = await signupMerchant(svc.app);
    const dev = await signupMerchant(svc.app);
    const writer = await newApp(svc, dev, ['public:write']);
    const reader = await newApp(svc, dev, ['public:read']);
    const types = ['customers.data_request', 'customers.redact', 'order.created'];
    const pw = path('writer');
    const pr = path('reader');
    const writerHook = await createAppWebhook(svc, dev, writer, `${rx.url}${pw}`, types);
    const readerHook = await createAppWebhook(svc, dev, reader, `${rx.url}${pr}`, types);
    await install(svc, writer, shop, 'public:write');
    await install(svc, reader, shop, 'public:read');

    const asked = await emit(svc, shop, 'customers.data_request');
    const erase = await emit(svc, shop, 'customers.redact');
    const order = await emit(svc, shop, 'order.created');
    expect([asked.deliveries, erase.deliveries, order.deliveries]).toEqual([2, 2, 1]);
    const toWriter = await arrived(writerHook, pw, 2);
    const toReader = await arrived(readerHook, pr, 3);
    expect(toWriter.map((b) => b.id).sort()).toEqual([asked.id, erase.id].sort());
    expect(toReader.map((b) => b.id).sort()).toEqual([asked.id, erase.id, order.id].sort());
    expect((await connectionOf(svc, shop, writer))!.events).toEqual([
      'customers.data_request',
      'customers.redact',
    ]);
  });
});

describe('store.redact', () => {
  const DAY2 = 172_800_000;

  it('arrives after the delay, across a restart in between, and not after a reinstall', async () => {
    const dev = await signupMerchant(svc.app);
    const gone = await signupMerchant(svc.app);
    const back = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const p = path('redact');
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}${p}`, ['store.redact']);
    const s = path('redact-own');
    const goneHook = await createWebhook(svc, gone, `${rx.url}${s}`, ['store.redact']);
    const goneGrant = await install(svc, app, gone);
    const backGrant = await install(svc, app, back);

    // The first process: both uninstall; `back` installs again. Nothing is due yet.
    const first = await startTestService({ shareWith: svc });
    await uninstall(first, gone, goneGrant);
    await uninstall(first, back, backGrant);
    await install(first, app, back);
    const { sweepRedactions } = await import('../../src/modules/oauth/index.ts');
    expect(await sweepRedactions(first.ctx)).toBe(0);
    await first.close();

    // A process started two days later, with its workers and sweeps running, sends it.
    const later = await startTestService({
      shareWith: svc,
      workers: true,
      clock: { now: () => Date.now() + DAY2 + 1000 },
    });
    try {
      const [body] = await arrived(wh, p, 1, DAY2 + 1000);
      // Recorded in one statement with any other due then: exactly one, for the store not reinstalled.
      expect(await deliveryCount(dev, wh.id)).toBe(1);
      expect(body).toMatchObject({
        type: 'store.redact',
        merchant_id: gone.merchantId,
        app_id: app.id,
        grant_id: goneGrant,
        store_id: gone.storeId,
        data: { grant_id: goneGrant, store_id: gone.storeId, app_id: app.id },
      });
      expect(await sweepRedactions(later.ctx)).toBe(0); // recorded once
    } finally {
      await later.close();
    }
    expect(await deliveryCount(gone, goneHook.id)).toBe(0); // the app's only, never the merchant's webhooks
  });
});

describe("an app's installations", () => {
  it("lists each installing store with its effective scopes and install time, for the app's developer only", async () => {
    const dev = await signupMerchant(svc.app);
    const shop = await signupMerchant(svc.app, 'Installing shop');
    const app = await newApp(svc, dev);
    const grantId = await install(svc, app, shop, 'public:read public:write');
    await setAllowedScopes(svc, dev, app, ['public:read']);
    const url = `/api/v1/merchant/developer/apps/${app.id}/installations`;
    const res = await svc.app.inject({ url, headers: dev.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.items).toEqual([
      expect.objectContaining({
        id: grantId,
        merchant_id: shop.merchantId,
        store: { id: shop.storeId, name: 'Installing shop' },
        scopes: ['public:read'], // granted, within the app's allowed scopes
        installed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);
    expect(JSON.stringify(res.json())).not.toContain('token');
    const theirs = await svc.app.inject({ url, headers: shop.auth });
    expect(theirs.statusCode).toBe(404);
    await uninstall(svc, shop, grantId);
    expect((await svc.app.inject({ url, headers: dev.auth })).json().data.items).toEqual([]);
  });
});

describe('an app deleted', () => {
  it('takes its webhooks with it', async () => {
    const dev = await signupMerchant(svc.app);
    const app = await newApp(svc, dev);
    const wh = await createAppWebhook(svc, dev, app, `${rx.url}/deleted`, ['order.created']);
    const res = await svc.app.inject({
      method: 'DELETE',
      url: `/api/v1/merchant/developer/apps/${app.id}`,
      headers: dev.auth,
    });
    expect(res.statusCode).toBe(204);
    const after = await svc.app.inject({ url: `${base}/${wh.id}`, headers: dev.auth });
    expect(after.statusCode).toBe(404);
  });
});
