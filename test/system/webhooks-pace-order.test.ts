// Pace, sequence and order (API.md section 11.4) with two service processes on one database (pg project only):
// a webhook's rate_limit holds at a real receiver across both; events ingested through both at once are
// numbered with no gap; and a worker SIGKILLed mid-send under per_object ordering loses nothing and keeps
// every key's order.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { mostInOneSecond, startReceiver, startTimingReceiver, type Receiver } from '../webhooks/receiver.ts';
import { sampleData } from '../../src/modules/events/index.ts';
import {
  call,
  emitMany,
  INTERNAL_TOKEN,
  killAll,
  merchantWithWebhook,
  startProcess,
  type ServiceProcess,
} from './webhooks-processes.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let client: pg.Client;
const receivers: Receiver[] = [];
beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  killAll();
  await client?.end();
  await Promise.all(receivers.map((rx) => rx.close()));
  await database?.drop();
});

// A 1 s attempt timeout makes the lease 4 s (2 x timeout + 2 s), so the crash test waits seconds.
const env = { SVC_WEBHOOK_TIMEOUT_MS: '1000', SVC_WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5,0.5,0.5,0.5' };

async function receiver(...args: Parameters<typeof startReceiver>) {
  const rx = await startReceiver(...args);
  receivers.push(rx);
  return rx;
}

/** Sets the webhook's delivery rules through the API. */
async function patchWebhook(base: string, token: string, id: string, body: Record<string, unknown>) {
  const res = await call<{ rate_limit: number | null; ordering: string }>(
    base,
    `/api/v1/merchant/webhooks/${id}`,
    { method: 'PATCH', token, body },
  );
  expect(res.status).toBe(200);
  return res.data;
}

// one of them is killed by the last test
let a: ServiceProcess;
let b: ServiceProcess;
beforeAll(async () => {
  [a, b] = await Promise.all([startProcess(database.url!, env), startProcess(database.url!, env)]);
});

it('never lets more than rate_limit attempts start in any one-second window, two processes delivering', async () => {
  // A receiver on a thread of its own stamps arrivals when they came: on the test process's loaded thread,
  // requests read late were stamped together, and a 5/s pace looked like 6 in one second.
  const rx = await startTimingReceiver();
  receivers.push(rx);
  const m = await merchantWithWebhook(a.url, `${rx.url}/limited`);
  expect(await patchWebhook(a.url, m.token, m.webhookId, { rate_limit: 5 })).toMatchObject({ rate_limit: 5 });
  const ids = await emitMany([a.url, b.url], m.merchantId, 40);
  await rx.waitFor(ids.length, 30_000);
  expect(new Set(rx.received.map((r) => String(r.headers['webhook-id'])))).toEqual(new Set(ids));
  expect(mostInOneSecond(rx.received)).toBeLessThanOrEqual(5);
}, 60_000);

it('numbers events with no gap per merchant and mode, ingested through two processes at once', async () => {
  const rx = await receiver();
  const one = await merchantWithWebhook(a.url, `${rx.url}/one`);
  const two = await merchantWithWebhook(b.url, `${rx.url}/two`);
  await Promise.all([
    emitMany([a.url, b.url], one.merchantId, 300, 24),
    emitMany([b.url, a.url], two.merchantId, 100, 8),
  ]);
  for (const [m, count] of [
    [one, 300],
    [two, 100],
  ] as const) {
    const { rows } = await client.query<{ sequence: string }>(
      `select sequence from events where merchant_id = $1 and mode = 'test' order by sequence`,
      [m.merchantId],
    );
    expect(rows.map((r) => Number(r.sequence))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }
  // what a receiver that saw a gap asks for
  const tail = await call<{ items: { sequence: number }[] }>(
    a.url,
    '/api/v1/merchant/events?after_sequence=295',
    { token: one.token },
  );
  expect(tail.data.items.map((e) => e.sequence)).toEqual([296, 297, 298, 299, 300]);
}, 60_000);

it('loses nothing and keeps each key in order when a worker is SIGKILLed mid-send under per_object', async () => {
  // Slow answers (half the 1 s timeout) keep attempts in flight at the moment of the kill.
  const rx = await receiver(() => ({ status: 200, delayMs: 500 }));
  const m = await merchantWithWebhook(a.url, `${rx.url}/ordered`);
  await patchWebhook(a.url, m.token, m.webhookId, { ordering: 'per_object' });
  // 150 events over 10 keys, ingested through both processes at once
  const order = sampleData('order.created');
  const ids = await Promise.all(
    Array.from({ length: 150 }, async (_, n) => {
      const res = await fetch(`${(n % 2 ? a : b).url}/internal/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          merchant_id: m.merchantId,
          mode: 'test',
          type: 'order.created',
          ordering_key: `key_${n % 10}`,
          data: { ...order, n },
        }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { data: { id: string } }).data.id;
    }),
  );

  // Wait until a process holds a claim taken in the last 100 ms (its lease of 4 s has more than 3.9 s left),
  // so its attempt is surely still waiting for the answer, then kill that process without any chance to
  // clean up. Which process claims is up to the race between them: either one is a worker killed mid-send.
  const leaseMs = 4_000;
  let victim: ServiceProcess | undefined;
  await eventually(
    async () => {
      const { rows } = await client.query<{ locked_by: string }>(
        `select locked_by from deliveries
         where webhook_id = $1 and status = 'pending' and locked_until > now() + $2 * interval '1 millisecond'`,
        [m.webhookId, leaseMs - 100],
      );
      victim = [a, b].find((p) => rows.some((r) => r.locked_by.includes(`:${p.pid}:`)));
      return victim !== undefined;
    },
    { timeoutMs: 20_000, intervalMs: 10, what: 'a process to hold a fresh claim' },
  );
  victim!.child.kill('SIGKILL');
  const { rows: orphaned } = await client.query<{ id: string }>(
    `select id from deliveries where status = 'pending' and locked_by like $1`,
    [`%:${victim!.pid}:%`],
  );
  expect(orphaned.length).toBeGreaterThan(0);

  let succeeded = 0;
  await eventually(
    async () => {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from deliveries where webhook_id = $1 and status = 'succeeded'`,
        [m.webhookId],
      );
      succeeded = rows[0]!.n;
      return succeeded === ids.length;
    },
    { timeoutMs: 90_000, intervalMs: 200, what: () => `all ${ids.length} to succeed (${succeeded} did)` },
  );

  // Each event's first arrival, by key: in the order of their sequences (an attempt cut by the kill may
  // arrive twice, never before the events of its key recorded before it).
  const firstArrivals = new Map<string, { ordering_key: string; sequence: number }>();
  for (const r of rx.received) {
    const body = JSON.parse(r.body) as { id: string; ordering_key: string; sequence: number };
    if (!firstArrivals.has(body.id)) firstArrivals.set(body.id, body);
  }
  expect(new Set(firstArrivals.keys())).toEqual(new Set(ids));
  for (let k = 0; k < 10; k++) {
    const sequences = [...firstArrivals.values()]
      .filter((e) => e.ordering_key === `key_${k}`)
      .map((e) => e.sequence);
    expect(sequences).toHaveLength(15);
    expect(sequences).toEqual(sequences.toSorted((x, y) => x - y));
  }
  expect(rx.overlaps).toEqual([]);
}, 120_000);
