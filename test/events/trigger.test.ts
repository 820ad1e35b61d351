// POST /api/v1/merchant/events/trigger (API.md section 10): a real test-mode event with the example data of
// its type, fields merged over it, delivered to every subscribed test webhook by the workers, to a real local
// receiver, verified with the official standardwebhooks library; live mode refused; audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { eventually } from '../support/eventually.ts';
import { createWebhook, deliveries } from '../webhooks/helpers.ts';
import { EVENT_PAYLOADS } from '../../src/modules/events/index.ts';

const url = '/api/v1/merchant/events/trigger';

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService({ workers: true });
  m = await signupMerchant(svc.app);
  rx = await startReceiver();
  // Opening the embedded database takes most of a minute on a loaded machine.
}, 180_000);
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

interface TriggeredEvent {
  id: string;
  type: string;
  mode: string;
  merchant_id: string;
  data: Record<string, unknown>;
  deliveries: { id: string; webhook_id: string; status: string; test: boolean }[];
}

const trigger = (payload: unknown, headers: Record<string, string> = {}) =>
  svc.app.inject({ method: 'POST', url, headers: { ...m.auth, ...headers }, payload: payload as object });

describe('trigger', () => {
  it('records a real test event with the example data, delivered signed to every subscribed test webhook', async () => {
    const a = await createWebhook(svc, m, `${rx.url}/a`, ['order.created']);
    const b = await createWebhook(svc, m, `${rx.url}/b`, ['order.created', 'order.paid']);
    const other = await createWebhook(svc, m, `${rx.url}/other`, ['payout.processed']);
    const res = await trigger({ type: 'order.created' });
    expect(res.statusCode).toBe(201);
    const event = res.json<{ data: TriggeredEvent }>().data;
    expect(event).toMatchObject({ type: 'order.created', mode: 'test', merchant_id: m.merchantId });
    expect(event.id).toMatch(/^evt_/);
    expect(event.data).toEqual(EVENT_PAYLOADS['order.created']!.example);
    expect(event.deliveries.map((d) => d.webhook_id).sort()).toEqual([a.id, b.id].sort());

    const got = await rx.waitFor(2, 15_000, (r) => r.headers['webhook-id'] === event.id);
    for (const r of got) {
      const secret = r.path === '/a' ? a.secret : b.secret;
      const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as TriggeredEvent;
      expect(body.data).toEqual(EVENT_PAYLOADS['order.created']!.example);
    }
    const succeeded = await eventually(
      async () => {
        const list = await deliveries(svc, m, a.id);
        return list.items.find((d) => d.event_id === event.id && d.status === 'succeeded');
      },
      { timeoutMs: 15_000, what: 'the triggered event to be delivered' },
    );
    expect(succeeded.test).toBe(false);
    expect((await deliveries(svc, m, other.id)).count).toBe(0);
  });

  it('merges the data override field by field over the example, and validates the result', async () => {
    const res = await trigger({
      type: 'payout.processed',
      data: { amount: 5000, destination: { last4: '9876' }, note: 'kept' },
    });
    expect(res.statusCode).toBe(201);
    const data = res.json<{ data: TriggeredEvent }>().data.data;
    const example = EVENT_PAYLOADS['payout.processed']!.example as { destination: Record<string, unknown> };
    expect(data).toMatchObject({ amount: 5000, currency: 'EUR', note: 'kept' });
    expect(data.destination).toEqual({ ...example.destination, last4: '9876' });

    const bad = await trigger({ type: 'payout.processed', data: { destination: { last4: 'abcd' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'validation_failed' });
    expect(bad.json().error.details).toContainEqual(
      expect.objectContaining({ field: 'data.destination.last4' }),
    );

    const unknown = await trigger({ type: 'order.exploded' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([
      { field: 'type', issue: 'is not an event of the catalog' },
    ]);
  });

  it('refuses live mode with 403 forbidden and records nothing', async () => {
    const res = await trigger({ type: 'order.created' }, { 'x-svc-mode': 'live' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    const live = await svc.app.inject({
      url: '/api/v1/merchant/events',
      headers: { ...m.auth, 'x-svc-mode': 'live' },
    });
    expect(live.json().data.count).toBe(0);
  });

  it('writes webhook.event_triggered to the audit log', async () => {
    const res = await trigger({ type: 'customer.updated', data: { first_name: 'Grace' } });
    const event = res.json<{ data: TriggeredEvent }>().data;
    const logs = await svc.app.inject({
      url: '/api/v1/merchant/developer/logs?action=webhook.event_triggered',
      headers: m.auth,
    });
    const entry = logs
      .json<{ data: { items: { entity_type: string; entity_id: string; metadata: string }[] } }>()
      .data.items.find((e) => e.entity_id === event.id);
    expect(entry).toMatchObject({ entity_type: 'event' });
    expect(JSON.parse(entry!.metadata)).toMatchObject({
      actor: { type: 'user', id: m.userId },
      event_type: 'customer.updated',
      overridden_fields: ['first_name'],
    });
  });

  it('requires a merchant session', async () => {
    const res = await svc.app.inject({ method: 'POST', url, payload: { type: 'order.created' } });
    expect(res.statusCode).toBe(401);
  });
});
