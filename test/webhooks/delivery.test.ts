// Delivery end to end: a real service with its workers, a real local HTTP receiver, the official
// `standardwebhooks` verifier, unmodified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, withReceiver, type Answer, type Receiver, type Received } from './receiver.ts';
import { PER_WEBHOOK } from '../../src/modules/delivery/worker.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, delivery, emit } from './helpers.ts';
import { eventually } from '../support/eventually.ts';

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2' },
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver();
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

const onPath = (path: string) => (r: { path: string }) => r.path === path;

describe('signed delivery', () => {
  it('delivers the stored payload byte for byte, verified by standardwebhooks', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/signed`, ['order.created', 'order.paid']);
    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push(await emit(svc, m, i % 2 ? 'order.paid' : 'order.created', { n: i }));
    expect(sent.every((e) => e.deliveries === 1)).toBe(true);
    const got = await rx.waitFor(5, 10_000, onPath('/signed'));
    const verifier = new Webhook(wh.secret);
    for (const r of got) {
      const verified = verifier.verify(r.body, r.headers as Record<string, string>) as Record<
        string,
        unknown
      >;
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toBe(verified.id);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(Object.keys(verified)).toEqual([
        'id',
        'type',
        'timestamp',
        'api_version',
        'mode',
        'merchant_id',
        'ordering_key',
        'data',
        'sequence',
      ]);
      expect(verified).toMatchObject({ api_version: 'v1', mode: 'test', merchant_id: m.merchantId });
    }
    expect(got.map((r) => r.headers['webhook-id']).sort()).toEqual(sent.map((e) => e.id).sort());
  });

  it('signs with both secrets during a rotation overlap, then with the new one only', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/rotate`, ['order.paid']);
    const rotate = async (seconds: number) =>
      (
        await svc.app.inject({
          method: 'POST',
          url: `${base}/${wh.id}/rotate-secret`,
          headers: m.auth,
          payload: { previous_secret_expires_in: seconds },
        })
      ).json<{ data: { secret: string } }>().data.secret;
    const second = await rotate(3600);
    await emit(svc, m, 'order.paid');
    const [overlap] = await rx.waitFor(1, 10_000, onPath('/rotate'));
    const signatures = String(overlap!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [wh.secret, second]) {
      expect(() =>
        new Webhook(secret).verify(overlap!.body, overlap!.headers as Record<string, string>),
      ).not.toThrow();
    }
    const third = await rotate(0);
    await emit(svc, m, 'order.paid');
    const after = (await rx.waitFor(2, 10_000, onPath('/rotate')))[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() =>
      new Webhook(third).verify(after.body, after.headers as Record<string, string>),
    ).not.toThrow();
    expect(() => new Webhook(second).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });
});

describe('retries', () => {
  it('retries on the configured schedule until the endpoint succeeds, recording every attempt', async () => {
    const seen = new Map<string, number>();
    const flaky = (r: Received): Answer => {
      const id = String(r.headers['webhook-id']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return n < 3 ? { status: 500, body: `failure ${n}` } : { status: 204 };
    };
    const { wh, ev, got, d } = await withReceiver(flaky, async (rx) => {
      const wh = await createWebhook(svc, m, `${rx.url}/flaky`);
      const ev = await emit(svc, m);
      const got = await rx.waitFor(3, 10_000, onPath('/flaky'));
      const d = await eventually(async () => {
        const [item] = (await deliveries(svc, m, wh.id)).items;
        return item?.status === 'succeeded' ? item : undefined;
      });
      return { wh, ev, got, d };
    });
    expect(got.every((r) => r.headers['webhook-id'] === ev.id)).toBe(true);
    // schedule 0.2 s with +-20% jitter: each gap at least 160 ms, and well under the 1 s polling fallback
    for (let i = 1; i < 3; i++) {
      const gap = got[i]!.at - got[i - 1]!.at;
      expect(gap).toBeGreaterThanOrEqual(150);
      expect(gap).toBeLessThan(800);
    }
    const full = await delivery(svc, m, wh.id, d.id);
    expect(full).toMatchObject({
      attempt_count: 3,
      last_response_status: 204,
      last_error: null,
      test: false,
    });
    expect(full.attempts.map((a) => [a.number, a.response_status, a.response_body])).toEqual([
      [1, 500, 'failure 1'],
      [2, 500, 'failure 2'],
      [3, 204, ''],
    ]);
    expect(full.attempts[0]!.error).toMatch(/500/);
  });

  it('counts a 3xx as a failure and never follows it, then fails after the last step', async () => {
    const moved = (r: Received): Answer =>
      r.path === '/moved'
        ? { status: 302, headers: { location: `http://${r.headers.host}/elsewhere` } }
        : { status: 200 };
    await withReceiver(moved, async (rx) => {
      const wh = await createWebhook(svc, m, `${rx.url}/moved`);
      await emit(svc, m);
      const d = await eventually(async () => {
        const [item] = (await deliveries(svc, m, wh.id)).items;
        return item?.status === 'failed' ? item : undefined;
      });
      expect(d).toMatchObject({ attempt_count: 4, last_response_status: 302, next_attempt_at: null });
      expect(rx.received.filter(onPath('/moved'))).toHaveLength(4);
      expect(rx.received.filter(onPath('/elsewhere'))).toHaveLength(0);
    });
  });

  it('disables the webhook at once on 410 Gone, with a reason and an audit entry', async () => {
    const m = await signupMerchant(svc.app);
    const { wh, hook } = await withReceiver(
      () => ({ status: 410 }),
      async (rx) => {
        const wh = await createWebhook(svc, m, `${rx.url}/gone`);
        await emit(svc, m);
        const hook = await eventually(async () => {
          const res = await svc.app.inject({ url: `${base}/${wh.id}`, headers: m.auth });
          const data = res.json<{ data: { status: string; disabled_reason: string | null } }>().data;
          return data.status === 'disabled' ? data : undefined;
        });
        return { wh, hook };
      },
    );
    expect(hook.disabled_reason).toMatch(/410/);
    const [d] = (await deliveries(svc, m, wh.id)).items;
    expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_response_status: 410 });
    const logs = await svc.app.inject({
      url: `/api/v1/merchant/developer/logs?action=webhook.auto_disabled&entity_id=${wh.id}`,
      headers: m.auth,
    });
    const [entry] = logs.json<{ data: { items: { metadata: string }[] } }>().data.items;
    expect(JSON.parse(entry!.metadata).actor).toEqual({ type: 'system', id: 'svc' });
    expect((await emit(svc, m)).deliveries).toBe(0);
  });
});

describe('disabled and deleted webhooks', () => {
  it('a disabled webhook gets nothing of its disabled time; enabled again, it gets new events', async () => {
    const m = await signupMerchant(svc.app);
    const wh = await createWebhook(svc, m, `${rx.url}/paused`);
    await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/disable`, headers: m.auth });
    const during = await emit(svc, m);
    expect(during.deliveries).toBe(0);
    // no delivery was made for it: there is nothing a worker could send later
    expect((await deliveries(svc, m, wh.id)).count).toBe(0);
    expect(rx.received.filter(onPath('/paused'))).toHaveLength(0);
    await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/enable`, headers: m.auth });
    const after = await emit(svc, m);
    const [got] = await rx.waitFor(1, 10_000, onPath('/paused'));
    expect(got!.headers['webhook-id']).toBe(after.id);
    // recorded as succeeded: nothing of it is in flight or claimable any more
    await eventually(async () => (await deliveries(svc, m, wh.id, '?status=succeeded')).count === 1, {
      what: 'the delivery to be recorded',
    });
    expect(rx.received.filter(onPath('/paused'))).toHaveLength(1);
    expect((await deliveries(svc, m, wh.id)).count).toBe(1);
  });
});

describe('test deliveries and manual retries', () => {
  it('sends a signed sample now and answers with the first attempt', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/test-route`, ['product.created', 'order.paid']);
    const res = await svc.app.inject({ method: 'POST', url: `${base}/${wh.id}/test`, headers: m.auth });
    expect(res.statusCode).toBe(200);
    const d = res.json<{ data: { test: boolean; event_type: string; status: string; attempts: unknown[] } }>()
      .data;
    expect(d).toMatchObject({
      test: true,
      event_type: 'product.created',
      status: 'succeeded',
      attempt_count: 1,
    });
    expect(d.attempts).toEqual([
      expect.objectContaining({ number: 1, response_status: 200, response_body: 'ok' }),
    ]);
    const [got] = await rx.waitFor(1, 1000, onPath('/test-route'));
    const body = new Webhook(wh.secret).verify(got!.body, got!.headers as Record<string, string>) as {
      type: string;
    };
    expect(body.type).toBe('product.created');

    const chosen = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/test`,
      headers: m.auth,
      payload: { event: 'order.paid' },
    });
    expect(chosen.json().data.event_type).toBe('order.paid');
    const unknown = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/test`,
      headers: m.auth,
      payload: { event: 'order.nope' },
    });
    expect(unknown.statusCode).toBe(400);
  });

  it('retries a finished delivery at once with the same webhook-id (202), audited', async () => {
    const wh = await createWebhook(svc, m, `${rx.url}/again`);
    const ev = await emit(svc, m);
    await rx.waitFor(1, 10_000, onPath('/again'));
    const d = await eventually(async () => {
      const [item] = (await deliveries(svc, m, wh.id, '?status=succeeded')).items;
      return item;
    });
    const res = await svc.app.inject({
      method: 'POST',
      url: `${base}/${wh.id}/deliveries/${d.id}/retry`,
      headers: m.auth,
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toMatchObject({ id: d.id, status: 'pending' });
    const got = await rx.waitFor(2, 5000, onPath('/again'));
    expect(got[1]!.headers['webhook-id']).toBe(ev.id);
    const after = await eventually(async () => {
      const x = await delivery(svc, m, wh.id, d.id);
      return x.status === 'succeeded' && x.attempt_count === 2 ? x : undefined;
    });
    expect(after.attempts).toHaveLength(2);
    const logs = await svc.app.inject({
      url: `/api/v1/merchant/developer/logs?action=webhook.delivery_retried&entity_id=${d.id}`,
      headers: m.auth,
    });
    expect(logs.json().data.items[0].entity_type).toBe('webhook_delivery');
  });

  it('filters deliveries by status and keeps the first 16 KiB of an answer', async () => {
    const { wh, d } = await withReceiver(
      () => ({ status: 200, body: 'x'.repeat(20_000) }),
      async (rx) => {
        const wh = await createWebhook(svc, m, `${rx.url}/big`);
        await emit(svc, m);
        const d = await eventually(
          async () => (await deliveries(svc, m, wh.id, '?status=succeeded')).items[0],
        );
        return { wh, d };
      },
    );
    expect((await deliveries(svc, m, wh.id, '?status=failed')).count).toBe(0);
    const full = await delivery(svc, m, wh.id, d.id);
    expect(full.attempts[0]!.response_body).toHaveLength(16 * 1024);
    const bad = await svc.app.inject({ url: `${base}/${wh.id}/deliveries?status=nope`, headers: m.auth });
    expect(bad.statusCode).toBe(400);
  });
});

describe('per-webhook concurrency', () => {
  it('keeps at most PER_WEBHOOK attempts in flight to a slow endpoint while others flow', async () => {
    let inFlight = 0;
    let max = 0;
    const slowOnly = (r: Received): Answer => {
      if (r.path !== '/slow') return { status: 200 };
      inFlight++;
      max = Math.max(max, inFlight);
      setTimeout(() => inFlight--, 400);
      return { status: 200, delayMs: 400 };
    };
    await withReceiver(slowOnly, async (rx) => {
      await createWebhook(svc, m, `${rx.url}/slow`, ['inventory.low_stock']);
      await createWebhook(svc, m, `${rx.url}/fast`, ['payout.processed']);
      // more than the worker may hold for one webhook (2 x PER_WEBHOOK): a backlog stays in the database
      const backlog = 2 * PER_WEBHOOK + 16;
      for (let i = 0; i < backlog; i++) await emit(svc, m, 'inventory.low_stock');
      // the slow backlog is being sent (and the rest of it waits) before the fast event comes
      await eventually(async () => inFlight > 0, { intervalMs: 10, what: 'the slow backlog to be sent' });
      const t0 = Date.now();
      await emit(svc, m, 'payout.processed');
      await rx.waitFor(1, 5000, onPath('/fast'));
      expect(Date.now() - t0).toBeLessThan(500); // the slow backlog needs three rounds of 400 ms
      await rx.waitFor(backlog, 15_000, onPath('/slow'));
    });
    expect(max).toBeLessThanOrEqual(PER_WEBHOOK);
    expect(max).toBeGreaterThan(1);
  });
});
