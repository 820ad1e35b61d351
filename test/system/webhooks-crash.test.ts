// A worker process killed with SIGKILL in the middle of sends loses nothing: the deliveries it had claimed
// come due again when their leases run out, and the surviving process sends every one. (pg project only.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
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
  // Slow answers keep many attempts in flight at the moment of the kill.
  rx = await startReceiver(() => ({ status: 200, delayMs: 300 }));
});
afterAll(async () => {
  killAll();
  await client?.end();
  await rx?.close();
  await database?.drop();
});

// A 1 s attempt timeout makes the lease 4 s (2 x timeout + 2 s), so the test waits seconds, not a minute.
const env = { SVC_WEBHOOK_TIMEOUT_MS: '1000', SVC_WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5,0.5,0.5,0.5' };

it('every delivery succeeds after one of two workers is SIGKILLed mid-send', async () => {
  const a = await startProcess(database.url!, env);
  const b = await startProcess(database.url!, env);
  const m = await merchantWithWebhook(a.url, `${rx.url}/crash`);
  const ids = await emitMany([a.url, b.url], m.merchantId, 300);

  // wait until process A holds claims it is sending, then kill it without any chance to clean up
  const heldByA = await eventually(
    async () => {
      const { rows } = await client.query<{ id: string }>(
        `select id from deliveries where status = 'pending' and locked_by like $1`,
        [`%:${a.pid}:%`],
      );
      return rows.length >= 5 && rows.map((r) => r.id);
    },
    { timeoutMs: 20_000, intervalMs: 20, what: 'process A to hold five claims' },
  );
  a.child.kill('SIGKILL');
  expect(heldByA.length).toBeGreaterThanOrEqual(5);
  const { rows: orphaned } = await client.query<{ id: string }>(
    `select id from deliveries where status = 'pending' and locked_by like $1`,
    [`%:${a.pid}:%`],
  );
  expect(orphaned.length).toBeGreaterThan(0);

  // all 300 succeed, the ones A held included, with B the only process left
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
    { timeoutMs: 60_000, intervalMs: 200, what: () => `all ${ids.length} to succeed (${succeeded} did)` },
  );
  const { rows: finals } = await client.query<{ status: string; locked_by: string | null }>(
    `select status, locked_by from deliveries where id = any($1)`,
    [orphaned.map((o) => o.id)],
  );
  expect(finals.every((f) => f.status === 'succeeded' && f.locked_by === null)).toBe(true);

  const seen = new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
  expect(ids.every((id) => seen.has(id))).toBe(true);
  const verifier = new Webhook(m.secret);
  for (const r of rx.received) verifier.verify(r.body, r.headers as Record<string, string>);
  expect(rx.overlaps).toEqual([]);
}, 120_000);
