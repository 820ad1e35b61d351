// Two processes on one PostgreSQL share the delivery queue: 1,000 events, each received at least once, and
// no attempt ever in flight twice at the same time (the receiver counts requests in flight per webhook-id).
// (pg project only.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { emitMany, killAll, merchantWithWebhook, startProcess } from './webhooks-processes.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let rx: Receiver;
let client: pg.Client;
beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // a little latency so attempts overlap in time, and the first attempt of one event in ten fails, so
  // retries are in the mix
  const seen = new Set<string>();
  rx = await startReceiver((r) => {
    const id = String(r.headers['webhook-id']);
    const first = !seen.has(id);
    seen.add(id);
    return {
      status: first && id.charCodeAt(id.length - 1) % 10 === 0 ? 500 : 200,
      delayMs: Math.floor(Math.random() * 20),
    };
  });
});
afterAll(async () => {
  killAll();
  await client?.end();
  await rx?.close();
  await database?.drop();
});

it('delivers 1,000 events from two processes, each at least once, never one attempt twice at once', async () => {
  const env = { SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.2,0.2' };
  const a = await startProcess(database.url!, env);
  const b = await startProcess(database.url!, env);
  const m = await merchantWithWebhook(a.url, `${rx.url}/two`);
  const ids = await emitMany([a.url, b.url], m.merchantId, 1000);
  expect(new Set(ids).size).toBe(1000);

  let succeeded = 0;
  await eventually(
    async () => {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from deliveries where webhook_id = $1 and status = 'succeeded'`,
        [m.webhookId],
      );
      succeeded = rows[0]!.n;
      return succeeded === 1000;
    },
    { timeoutMs: 90_000, intervalMs: 200, what: () => `all 1000 to succeed (${succeeded} did)` },
  );
  const seen = new Set(
    rx.received.filter((r) => r.path === '/two').map((r) => String(r.headers['webhook-id'])),
  );
  expect(ids.filter((id) => !seen.has(id))).toEqual([]);
  expect(rx.overlaps).toEqual([]);

  const { rows: attempts } = await client.query<{ n: number }>(
    `select count(*)::int as n from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.webhook_id = $1`,
    [m.webhookId],
  );
  // every request the receiver saw is a recorded attempt: nothing sent twice behind the queue's back
  expect(attempts[0]!.n).toBe(rx.received.filter((r) => r.path === '/two').length);
  expect(attempts[0]!.n).toBeGreaterThan(1000); // the failed first attempts were retried
  void b;
}, 150_000);
