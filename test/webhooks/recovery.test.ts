// The merchant's engineer on a bad day (API.md section 10): endpoint health after a known run of successes and
// failures, the events page, resend to a chosen endpoint, recovery of what failed (idempotent under a double
// click), and revealing the signing secret again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { eventually } from '../support/eventually.ts';
import { INTERNAL_TOKEN, base, createWebhook, deliveries, emit } from './helpers.ts';

let svc: TestService;
let m: TestMerchant;
let rx: Receiver;
let failing = true;
beforeAll(async () => {
  svc = await startTestService({
    workers: true,
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN, SVC_WEBHOOK_RETRY_SCHEDULE: '0.2' },
  });
  m = await signupMerchant(svc.app);
  rx = await startReceiver((r) => ({ status: r.path === '/bad' && failing ? 500 : 200 }));
});
afterAll(async () => {
  await svc?.close();
  await rx?.close();
});

interface Health {
  deliveries_24h: number;
  success_rate_24h: number | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  failing_since: string | null;
  disables_at: string | null;
}

async function health(id: string): Promise<Health> {
  const res = await svc.app.inject({ url: `${base}/${id}`, headers: m.auth });
  return res.json<{ data: { health: Health } }>().data.health;
}

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  svc.app.inject({ method, url: `/api/v1/merchant${url}`, headers: m.auth, ...(payload ? { payload } : {}) });

const settled = (webhookId: string, n: number) =>
  eventually(async () => {
    const page = await deliveries(svc, m, webhookId);
    return page.items.length >= n && page.items.every((d) => d.status !== 'pending') ? page : undefined;
  });

describe('endpoint health, events, resend and recovery', () => {
  let ok: { id: string };
  let bad: { id: string; secret: string };
  const badEvents: string[] = [];

  it('reports the last day of a healthy and a failing endpoint', async () => {
    ok = await createWebhook(svc, m, `${rx.url}/ok`, ['order.created']);
    bad = await createWebhook(svc, m, `${rx.url}/bad`, ['order.paid']);
    expect(await health(ok.id)).toEqual({
      deliveries_24h: 0,
      filtered_24h: 0,
      success_rate_24h: null,
      last_attempt_at: null,
      last_status: null,
      last_error: null,
      failing_since: null,
      disables_at: null,
      pace: null,
      pace_reason: null,
    });
    for (let i = 0; i < 3; i++) await emit(svc, m, 'order.created', { id: `order_ok_${i}` });
    for (let i = 0; i < 2; i++)
      badEvents.push((await emit(svc, m, 'order.paid', { id: `order_bad_${i}` })).id);
    await settled(ok.id, 3);
    await settled(bad.id, 2); // two attempts each, then failed

    const good = await health(ok.id);
    expect(good).toMatchObject({
      deliveries_24h: 3,
      success_rate_24h: 1,
      last_status: 200,
      failing_since: null,
    });
    expect(good.disables_at).toBeNull();
    const sick = await health(bad.id);
    expect(sick).toMatchObject({ deliveries_24h: 2, success_rate_24h: 0, last_status: 500 });
    // What the last attempt met, beside its status: the dashboard says it in words.
    expect(sick.last_error).toBe('http_status: the endpoint answered 500');
    expect(good.last_error).toBeNull();
    expect(sick.failing_since).not.toBeNull();
    expect(Date.parse(sick.disables_at!) - Date.parse(sick.failing_since!)).toBe(5 * 86_400_000);
    expect(Date.parse(sick.last_attempt_at!)).toBeGreaterThanOrEqual(Date.parse(sick.failing_since!));

    // A test delivery does not count.
    await call('POST', `/webhooks/${ok.id}/test`);
    expect((await health(ok.id)).deliveries_24h).toBe(3);

    // The list carries the same block.
    const list = await call('GET', '/webhooks');
    const items = list.json<{ data: { items: { id: string; health: Health }[] } }>().data.items;
    expect(items.find((w) => w.id === bad.id)!.health).toEqual(await health(bad.id));
  });

  it('lists events newest first, finds one by its id or its data.id, with its deliveries', async () => {
    const all = await call('GET', '/events?limit=2');
    expect(all.statusCode).toBe(200);
    const page = all.json<{
      data: { items: { id: string; type: string }[]; count: number; has_more: boolean };
    }>().data;
    expect(page.count).toBeGreaterThanOrEqual(6); // 5 emitted + the test event
    expect(page.has_more).toBe(true);

    const paid = await call('GET', '/events?type=order.paid');
    const paidItems = paid.json<{ data: { items: { id: string; type: string }[] } }>().data.items;
    expect(paidItems.map((e) => e.id)).toEqual([...badEvents].reverse());

    const byData = await call('GET', '/events?q=order_bad_1');
    const found = byData.json<{
      data: {
        items: { id: string; data: { id: string }; deliveries: { webhook_id: string; status: string }[] }[];
      };
    }>().data.items;
    expect(found).toHaveLength(1);
    expect(found[0]!.id).toBe(badEvents[1]);
    expect(found[0]!.data.id).toBe('order_bad_1');
    expect(found[0]!.deliveries).toEqual([expect.objectContaining({ webhook_id: bad.id, status: 'failed' })]);

    const byId = await call('GET', `/events?q=${badEvents[0]}`);
    expect(byId.json<{ data: { count: number } }>().data.count).toBe(1);

    const one = await call('GET', `/events/${badEvents[0]}`);
    expect(one.statusCode).toBe(200);
    const event = one.json<{ data: { type: string; deliveries: { attempt_count: number }[] } }>().data;
    expect(event.type).toBe('order.paid');
    expect(event.deliveries[0]!.attempt_count).toBe(2);

    expect((await call('GET', '/events/evt_nope')).statusCode).toBe(404);
    // Another merchant sees none of it.
    const other = await signupMerchant(svc.app);
    const theirs = await svc.app.inject({
      url: `/api/v1/merchant/events/${badEvents[0]}`,
      headers: other.auth,
    });
    expect(theirs.statusCode).toBe(404);
  });

  it('resends an event to a chosen endpoint that subscribes to its type', async () => {
    // `ok` does not hear order.paid: a resend there is refused (resend-targets.test.ts has every reason)
    const refused = await call('POST', `/events/${badEvents[0]}/resend`, { webhook_id: ok.id });
    expect(refused.statusCode).toBe(409);
    const paidToo = await createWebhook(svc, m, `${rx.url}/ok`, ['order.paid']);
    const before = rx.received.filter((r) => r.path === '/ok').length;
    const res = await call('POST', `/events/${badEvents[0]}/resend`, { webhook_id: paidToo.id });
    expect(res.statusCode).toBe(202);
    expect(res.json<{ data: { webhook_id: string; event_id: string } }>().data).toMatchObject({
      webhook_id: paidToo.id,
      event_id: badEvents[0],
    });
    const got = await rx.waitFor(before + 1, 10_000, (r) => r.path === '/ok');
    expect(got.at(-1)!.headers['webhook-id']).toBe(badEvents[0]);
    expect((await call('POST', `/events/${badEvents[0]}/resend`, { webhook_id: 'wh_nope' })).statusCode).toBe(
      404,
    );
  });

  it('recovers every failed delivery once, even under a double click', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const preview = await call('POST', `/webhooks/${bad.id}/recover`, { since, preview: true });
    expect(preview.statusCode).toBe(200);
    expect(preview.json<{ data: { count: number } }>().data.count).toBe(2);

    // The endpoint is fixed for this step only, and fails again after it whatever happens here: the other
    // steps expect /bad to fail.
    failing = false;
    try {
      const before = rx.received.filter((r) => r.path === '/bad').length;
      const [a, b] = await Promise.all([
        call('POST', `/webhooks/${bad.id}/recover`, { since }),
        call('POST', `/webhooks/${bad.id}/recover`, { since }),
      ]);
      expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
      const counts = [a, b].map((r) => r.json<{ data: { count: number } }>().data.count);
      expect(counts[0]! + counts[1]!).toBe(2);

      // Settled: every delivery recorded and none pending, so nothing is in flight or can be claimed again,
      // and the receiver recorded each request before its answer was recorded: what it got is final.
      await settled(bad.id, 2);
      const sent = rx.received.filter((r) => r.path === '/bad').slice(before);
      expect(sent.map((r) => r.headers['webhook-id']).sort()).toEqual([...badEvents].sort());
      const healed = await health(bad.id);
      expect(healed).toMatchObject({ failing_since: null, disables_at: null, last_status: 200 });

      const again = await call('POST', `/webhooks/${bad.id}/recover`, { since, preview: true });
      expect(again.json<{ data: { count: number } }>().data.count).toBe(0);
      const logs = await call('GET', '/developer/logs?action=webhook.recovered');
      expect(logs.json<{ data: { count: number } }>().data.count).toBe(2);
    } finally {
      failing = true;
    }
  });

  it('shows the exact headers each attempt sent and the headers it got back', async () => {
    const page = await deliveries(svc, m, ok.id, '?status=succeeded');
    const one = await svc.app.inject({
      url: `${base}/${ok.id}/deliveries/${page.items[0]!.id}`,
      headers: m.auth,
    });
    const attempt = one.json<{
      data: {
        event_id: string;
        payload: string;
        attempts: { request_headers: Record<string, string>; response_headers: Record<string, string> }[];
      };
    }>().data;
    const seen = rx.received.filter((r) => r.path === '/ok' && r.headers['webhook-id'] === attempt.event_id);
    const sent = attempt.attempts.at(-1)!.request_headers;
    expect(Object.keys(sent).sort()).toEqual([
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(seen.some((r) => Object.entries(sent).every(([k, v]) => r.headers[k] === v))).toBe(true);
    expect(seen.every((r) => r.body === attempt.payload)).toBe(true);
    expect(attempt.attempts.at(-1)!.response_headers['content-type']).toBe('text/plain');
  });

  it('reveals the signing secret after the password, and audits it', async () => {
    const wrong = await call('POST', `/webhooks/${bad.id}/reveal-secret`, { password: 'not the password' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json<{ error: { code: string } }>().error.code).toBe('forbidden');
    const res = await call('POST', `/webhooks/${bad.id}/reveal-secret`, { password: m.password });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json<{ data: { secret: string } }>().data.secret).toBe(bad.secret);
    const logs = await call('GET', '/developer/logs?action=webhook.secret_revealed');
    const entries = logs.json<{ data: { items: { entity_id: string; metadata: string }[] } }>().data.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.entity_id).toBe(bad.id);
    expect(entries[0]!.metadata).not.toContain('whsec_');
  });
});
