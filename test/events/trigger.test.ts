// POST /api/v1/merchant/events/trigger (API.md section 10): a real test-mode event whose data comes from the
// merchant's own store (its store id, fresh ids, the current time, related events sharing ids), fields merged
// over it and unknown ones refused, delivered to every subscribed test webhook by the workers, to a real local
// receiver, verified with the official standardwebhooks library; live mode refused; audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { eventually } from '../support/eventually.ts';
import { createWebhook, deliveries } from '../webhooks/helpers.ts';
import { EVENT_PAYLOADS, payloadProblems } from '../../src/modules/events/index.ts';

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
  it('records a real test event from the merchant store, delivered signed to every subscribed test webhook', async () => {
    const a = await createWebhook(svc, m, `${rx.url}/a`, ['order.created']);
    const b = await createWebhook(svc, m, `${rx.url}/b`, ['order.created', 'order.paid']);
    const other = await createWebhook(svc, m, `${rx.url}/other`, ['payout.processed']);
    const res = await trigger({ type: 'order.created' });
    expect(res.statusCode).toBe(201);
    const event = res.json<{ data: TriggeredEvent }>().data;
    expect(event).toMatchObject({ type: 'order.created', mode: 'test', merchant_id: m.merchantId });
    expect(event.id).toMatch(/^evt_/);
    expect(event.data.store_id).toBe(m.storeId);
    expect(payloadProblems('order.created', event.data, true)).toEqual([]);
    expect(event.deliveries.map((d) => d.webhook_id).sort()).toEqual([a.id, b.id].sort());

    const got = await rx.waitFor(2, 15_000, (r) => r.headers['webhook-id'] === event.id);
    for (const r of got) {
      const secret = r.path === '/a' ? a.secret : b.secret;
      const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as TriggeredEvent;
      expect(body.data).toEqual(event.data);
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

  it('merges the data override field by field over the sample, and validates the result', async () => {
    const res = await trigger({
      type: 'payout.processed',
      data: { amount: 5000, destination: { last4: '9876' } },
    });
    expect(res.statusCode).toBe(201);
    const data = res.json<{ data: TriggeredEvent }>().data.data;
    const example = EVENT_PAYLOADS['payout.processed']!.example as { destination: Record<string, unknown> };
    expect(data).toMatchObject({ amount: 5000, currency: 'EUR' });
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

  it('refuses a field the schema does not name, with its path, and records nothing', async () => {
    const before = await svc.app.inject({ url: '/api/v1/merchant/events', headers: m.auth });
    for (const [data, field] of [
      [{ total: 4200 }, 'data.total'],
      [{ totals: { grand_total: 4200 } }, 'data.totals.grand_total'],
      [
        {
          line_items: [
            { ...(EVENT_PAYLOADS['order.paid']!.example.line_items as object[])[0], colour: 'blue' },
          ],
        },
        'data.line_items[0].colour',
      ],
    ] as const) {
      const res = await trigger({ type: 'order.paid', data });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
      expect(res.json().error.details).toEqual([{ field, issue: 'is not an allowed field' }]);
    }
    const after = await svc.app.inject({ url: '/api/v1/merchant/events', headers: m.auth });
    expect(after.json().data.count).toBe(before.json().data.count);
  });

  it('builds related events from the store, with fresh ids shared through --object and the current time', async () => {
    const example = EVENT_PAYLOADS['order.created']!.example as { id: string; customer_id: string };
    const started = Date.now();
    const created = (await trigger({ type: 'order.created' })).json<{ data: TriggeredEvent }>().data;
    const paidRes = await trigger({ type: 'order.paid', object: created.data.id });
    expect(paidRes.statusCode).toBe(201);
    const paid = paidRes.json<{ data: TriggeredEvent }>().data;
    const other = (await trigger({ type: 'order.created' })).json<{ data: TriggeredEvent }>().data;
    const ended = Date.now();

    for (const [type, data] of [
      ['order.created', created.data],
      ['order.paid', paid.data],
    ] as const) {
      expect(payloadProblems(type, data, true), type).toEqual([]);
      expect(data.store_id, type).toBe(m.storeId);
    }
    // Fresh: no id of the fixed example, none of another trigger; shared: the paid order is the created one.
    expect(created.data.id).toMatch(/^ord_/);
    expect(created.data.id).not.toBe(example.id);
    expect(created.data.customer_id).not.toBe(example.customer_id);
    expect(other.data.id).not.toBe(created.data.id);
    expect(paid.data).toMatchObject({
      id: created.data.id,
      status: 'paid',
      customer_id: created.data.customer_id,
      line_items: created.data.line_items,
      totals: created.data.totals,
      created_at: created.data.created_at,
    });
    // Now: the moment of each event is the time it was triggered.
    const within = (iso: unknown) => {
      const t = Date.parse(String(iso));
      return t >= started && t <= ended;
    };
    expect(within(created.data.updated_at), String(created.data.updated_at)).toBe(true);
    expect(within(paid.data.paid_at), String(paid.data.paid_at)).toBe(true);
    expect(Date.parse(String(paid.data.paid_at))).toBeGreaterThanOrEqual(
      Date.parse(String(created.data.created_at)),
    );

    // An object of another kind is refused, naming the field.
    const wrong = await trigger({ type: 'order.paid', object: 'cus_123' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details).toEqual([
      { field: 'object', issue: 'must be the id of the order.paid object (ord_...)' },
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
