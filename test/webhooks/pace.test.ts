// Pace per endpoint (API.md section 11.4), on both databases: a webhook's rate_limit holds at a real receiver
// with two services delivering from one database, a throttled endpoint holds back no other, and an endpoint
// that answers 429 above its capacity is paced down to it and still gets its deliveries. Real time: a pace is
// a number of starts per second at the receiver.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { mostInOneSecond, startTimingReceiver, type Received } from './receiver.ts';
import { base, createWebhook, deliveries, emit, INTERNAL_TOKEN } from './helpers.ts';

const env = {
  SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
  SVC_WEBHOOK_TIMEOUT_MS: '2000',
  SVC_WEBHOOK_RETRY_SCHEDULE: '1,1,2',
};

let a: TestService;
let b: TestService;
let m: TestMerchant;
beforeAll(async () => {
  a = await startTestService({ workers: true, env });
  b = await startTestService({ workers: true, env, shareWith: a });
  m = await signupMerchant(a.app);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});
// A failure says what the engine made of it: each endpoint's pace, and its attempts by outcome.
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const paces = await sql`select w.url, p.rate_limit, p.pace, p.pace_reason, p.parked
    from webhook_paces p join webhooks w on w.id = p.webhook_id`.execute(a.ctx.db);
  const attempts =
    await sql`select w.url, coalesce(t.response_status::text, split_part(t.error, ':', 1)) as outcome,
      count(*)::int as n, max(t.duration_ms) as longest_ms
    from delivery_attempts t join deliveries d on d.id = t.delivery_id join webhooks w on w.id = d.webhook_id
    group by 1, 2 order by 1, 2`.execute(a.ctx.db);
  const pending = await sql`select w.url, d.parked, d.attempt_count,
      round(extract(epoch from d.next_attempt_at - now()))::int as due_in_s,
      round(extract(epoch from d.locked_until - now()))::int as lease_s, count(*)::int as n
    from deliveries d join webhooks w on w.id = d.webhook_id where d.status = 'pending'
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`.execute(a.ctx.db);
  console.error(
    `paces ${JSON.stringify(paces.rows)}\nattempts ${JSON.stringify(attempts.rows)}\npending ${JSON.stringify(pending.rows)}`,
  );
});

async function webhookWith(url: string, events: string[], body: Record<string, unknown>) {
  const hook = await createWebhook(a, m, url, events);
  const res = await a.app.inject({
    method: 'PATCH',
    url: `${base}/${hook.id}`,
    headers: m.auth,
    payload: body,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: { id: string; rate_limit: number | null; health: { pace: number | null } } }>()
    .data;
}

const succeeded = async (webhookId: string) =>
  (await deliveries(a, m, webhookId, '?status=succeeded&limit=1')).count;
/** Outcomes are recorded just after the receiver answered: a count the receiver has seen, once recorded. */
const recorded = (webhookId: string, count: number) =>
  eventually(async () => (await succeeded(webhookId)) >= count, { what: `${count} recorded successes` });

describe('rate_limit', () => {
  // The receiver runs on a thread of its own: on PGlite the database's statements hold the test process's
  // thread, and a receiver there would record late, bunched arrival times rather than when requests arrived.
  it('never starts more than rate_limit attempts in any one-second window, two services delivering', async () => {
    const rx = await startTimingReceiver();
    try {
      const hook = await webhookWith(`${rx.url}/limited`, ['order.created'], { rate_limit: 4 });
      expect(hook.rate_limit).toBe(4);
      expect(hook.health.pace).toBe(4);
      const emitted = await Promise.all(
        Array.from({ length: 24 }, (_, i) => emit(i % 2 ? a : b, m, 'order.created', { id: `ord_${i}` })),
      );
      await rx.waitFor(emitted.length, 20_000);
      expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(emitted.length);
      expect(mostInOneSecond(rx.received)).toBeLessThanOrEqual(4);
    } finally {
      await rx.close();
    }
  }, 40_000);

  it('holds back no other endpoint: an unlimited one beside a throttled backlog is served at once', async () => {
    // On a thread of its own too: a receiver on the test process's thread answers only when the embedded
    // database lets it, and under load its answers came after the sender's timeout (the endpoint then paced
    // for timeouts that were the test's own).
    const rx = await startTimingReceiver();
    try {
      const slow = await webhookWith(`${rx.url}/throttled`, ['customer.created'], { rate_limit: 1 });
      // The throttled endpoint's backlog is recorded first, so that it is the oldest due work, and is longer
      // than a claim's window of candidates (twice its batch of 100): a claim that took and held it, or left
      // it in the due index, would find nothing else.
      await Promise.all(
        Array.from({ length: 400 }, (_, i) => emit(a, m, 'customer.created', { id: `cus_${i}` })),
      );
      const fast = await createWebhook(a, m, `${rx.url}/free`, ['order.paid']);
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 200 }, (_, i) => emit(a, m, 'order.paid', { id: `f_${i}` })));
      const onFree = (r: Received) => r.path === '/free';
      await rx.waitFor(200, 20_000, onFree);
      const took = Date.now() - t0;
      // while the throttled endpoint has had time for a few of its 400 only
      const throttled = rx.received.filter((r) => r.path === '/throttled').length;
      expect(throttled).toBeLessThanOrEqual(Math.ceil(took / 1000) + 1);
      await recorded(fast.id, 200);
      expect(await succeeded(slow.id)).toBeLessThan(400);
    } finally {
      await rx.close();
    }
  }, 40_000);
});

describe('adaptive pace', () => {
  it('paces an endpoint that answers 429 above 8/s down to it, and delivers at least 95% of 120', async () => {
    // The receiver takes 8 requests in any one second and answers 429 to the rest, on a thread of its own (as
    // above): it counts its second by when requests arrived, and answers at once even while the database's
    // statements hold the test process's thread.
    const rx = await startTimingReceiver({ perSecond: 8 });
    try {
      const hook = await createWebhook(a, m, `${rx.url}/capped`, ['product.created']);
      await Promise.all(
        Array.from({ length: 120 }, (_, i) => emit(i % 2 ? a : b, m, 'product.created', { id: `p_${i}` })),
      );
      const paced = await eventually(
        async () => {
          const res = await a.app.inject({ url: `${base}/${hook.id}`, headers: m.auth });
          const { health } = res.json<{ data: { health: { pace: number | null; pace_reason: string } } }>()
            .data;
          return health.pace !== null && health;
        },
        { timeoutMs: 10_000, what: 'health.pace to be set' },
      );
      expect(paced.pace_reason).toBe('429');
      expect(paced.pace).toBeLessThanOrEqual(8);
      const settled = await eventually(
        async () => {
          const page = await deliveries(a, m, hook.id, '?status=pending&limit=1');
          return page.count === 0 && (await deliveries(a, m, hook.id, '?limit=1'));
        },
        { timeoutMs: 60_000, intervalMs: 500, what: 'every delivery to end' },
      );
      expect(settled.count).toBe(120);
      expect(await succeeded(hook.id)).toBeGreaterThanOrEqual(114);
    } finally {
      await rx.close();
    }
  }, 90_000);
});
