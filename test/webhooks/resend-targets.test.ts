// Resend goes only where the event may go (API.md section 12.2), on both databases: the targets route offers
// exactly the endpoints that subscribe to the event's type and may receive it, and the resend route accepts
// those and answers 409 conflict, naming why, for every other (not subscribed, disabled, an app webhook the
// event never reached, store.redact to a merchant's own webhook).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { INTERNAL_TOKEN, base, createWebhook, emit, type CreatedWebhook } from './helpers.ts';
import { createAppWebhook, install, newApp } from './app-helpers.ts';
import { refusal } from '../../src/modules/dev-loop/resend-targets.ts';

let svc: TestService;
let m: TestMerchant;
let paid: CreatedWebhook;
let created: CreatedWebhook;
let disabled: CreatedWebhook;
let ownApp: CreatedWebhook & { app_id: string };
let lateApp: CreatedWebhook;
let eventId: string;

const RX = 'http://127.0.0.1:9/';

const call = (method: 'GET' | 'POST', url: string, payload?: object, who: TestMerchant = m) =>
  svc.app.inject({
    method,
    url: `/api/v1/merchant${url}`,
    headers: who.auth,
    ...(payload ? { payload } : {}),
  });

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  m = await signupMerchant(svc.app, 'Resender');
  paid = await createWebhook(svc, m, `${RX}paid`, ['order.paid']);
  created = await createWebhook(svc, m, `${RX}created`, ['order.created']);
  disabled = await createWebhook(svc, m, `${RX}disabled`, ['order.created']);
  expect((await call('POST', `/webhooks/${disabled.id}/disable`)).statusCode).toBe(200);
  // the merchant's own app, installed on its own store: its webhook hears the store's events
  const app = await newApp(svc, m);
  ownApp = await createAppWebhook(svc, m, app, `${RX}app`, ['order.created']);
  await install(svc, app, m, 'public:read');
  eventId = (await emit(svc, m, 'order.created', { id: 'ord_resend' })).id;
  // made after the event: no installation brought the event to it
  lateApp = await createAppWebhook(svc, m, app, `${RX}late`, ['order.created']);
});
afterAll(async () => svc?.close());

describe('GET /events/{id}/resend-targets', () => {
  it('offers only the endpoints that subscribe to the type and may receive it', async () => {
    const res = await call('GET', `/events/${eventId}/resend-targets`);
    expect(res.statusCode).toBe(200);
    const data = res.json<{ data: { items: { webhook_id: string }[]; count: number; has_more: boolean } }>()
      .data;
    expect(data.items.map((t) => t.webhook_id).sort()).toEqual([created.id, ownApp.id].sort());
    expect(data).toMatchObject({ count: 2, has_more: false, next_cursor: null });
    expect(data.items.find((t) => t.webhook_id === ownApp.id)).toMatchObject({
      url: `${RX}app`,
      app_id: ownApp.app_id,
    });
  });

  it("answers 404 for an unknown event or another merchant's", async () => {
    expect((await call('GET', '/events/evt_nope/resend-targets')).statusCode).toBe(404);
    const other = await signupMerchant(svc.app, 'Stranger');
    const theirs = await call('GET', `/events/${eventId}/resend-targets`, undefined, other);
    expect(theirs.statusCode).toBe(404);
  });
});

describe('POST /events/{id}/resend', () => {
  it('accepts an offered endpoint, an app webhook for the installation the event came through', async () => {
    for (const target of [created, ownApp]) {
      const res = await call('POST', `/events/${eventId}/resend`, { webhook_id: target.id });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json<{ data: { webhook_id: string; store_id: string | null } }>().data).toMatchObject({
        webhook_id: target.id,
        store_id: target === ownApp ? m.storeId : null,
      });
    }
  });

  it('answers 409 conflict naming why for every other endpoint', async () => {
    const cases: [CreatedWebhook, RegExp][] = [
      [paid, /does not subscribe to order\.created/],
      [disabled, /disabled/],
      [lateApp, /never reached the app's webhook/],
    ];
    for (const [target, why] of cases) {
      const res = await call('POST', `/events/${eventId}/resend`, { webhook_id: target.id });
      expect([target.url, res.statusCode, res.json().error.code]).toEqual([target.url, 409, 'conflict']);
      expect(res.json().error.message).toMatch(why);
    }
    // the disabled endpoint is offered again once enabled
    expect((await call('POST', `/webhooks/${disabled.id}/enable`)).statusCode).toBe(200);
    const offers = await call('GET', `/events/${eventId}/resend-targets`);
    expect(
      offers.json<{ data: { items: { webhook_id: string }[] } }>().data.items.map((t) => t.webhook_id),
    ).toContain(disabled.id);
    expect((await call('POST', `/events/${eventId}/resend`, { webhook_id: disabled.id })).statusCode).toBe(
      202,
    );
  });

  it("never sends store.redact to a merchant's own webhook, only to the app's", () => {
    const own = { status: 'enabled' as const, events: ['store.redact'], app_id: null };
    expect(refusal('store.redact', own, false)).toMatch(/app's webhooks only/);
    expect(refusal('store.redact', { ...own, app_id: 'app_1' }, true)).toBeNull();
  });

  it('still answers 404 for an unknown webhook', async () => {
    expect((await call('POST', `/events/${eventId}/resend`, { webhook_id: 'wh_nope' })).statusCode).toBe(404);
  });
});

describe('the deliveries list', () => {
  it('shows the store and app of each delivery', async () => {
    const res = await svc.app.inject({ url: `${base}/${ownApp.id}/deliveries`, headers: m.auth });
    const items = res.json<{ data: { items: { store_id: string | null; app_id: string | null }[] } }>().data
      .items;
    expect(items.length).toBeGreaterThanOrEqual(1);
    for (const d of items) expect(d).toMatchObject({ store_id: m.storeId, app_id: ownApp.app_id });
  });
});
