// SIGTERM to a worker with deliveries in flight to a slow receiver (API.md 12.1, Shutdown): the worker stops
// claiming, lets the attempts that get their answer within SVC_SHUTDOWN_GRACE_MS finish and records them, cuts
// off the others and gives back their claims and those it held unsent, and exits 0 within the grace. Another
// worker then delivers what was given back at once (long before the leases, 62 s here, could run out), so that
// every event is received and recorded once: no attempt lost, none doubled, none two at once.
// (pg project only: see vitest.config.ts.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, startProcess, stopAll } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { emitMany, merchantWithWebhook } from './webhooks-processes.ts';

const EVENTS = 40; // 32 in flight at once to one webhook (PER_WEBHOOK), the other 8 held unsent
const GRACE_MS = 4000;
// A lease is twice the attempt timeout plus 2 s: 62 s, far past the time the test gives the second worker.
const WORKER = {
  SVC_ROLE: 'worker',
  SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  SVC_WEBHOOK_TIMEOUT_MS: '30000',
};

let database: Awaited<ReturnType<typeof freshDatabase>>;
let client: pg.Client;
let rx: Receiver;
// While `holding`, the receiver answers a request only when the test releases it.
let holding = true;
const held: (() => void)[] = [];
/** The webhook-ids the receiver answered 200 to (a request cut off by its sender is never answered). */
const answered: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  rx = await startReceiver((r) => {
    const id = String(r.headers['webhook-id']);
    const release = holding ? new Promise<void>((resolve) => held.push(resolve)) : undefined;
    return {
      status: 200,
      after: (release ?? Promise.resolve()).then(() => void answered.push(id)),
    };
  });
}, 120_000);
afterAll(async () => {
  held.forEach((release) => release());
  await stopAll();
  await client?.end();
  await rx?.close();
  await database?.drop();
});

const count = async (query: string, params: unknown[] = []) =>
  (await client.query<{ n: number }>(query, params)).rows[0]!.n;

it('gives back every claim within the grace on SIGTERM, exits 0, and another worker delivers them at once', async () => {
  const api = await startProcess(database.url!, { SVC_ROLE: 'api' });
  const m = await merchantWithWebhook(api.url, `${rx.url}/slow`);
  const first = await startProcess(database.url!, { ...WORKER, SVC_METRICS_PORT: String(await freePort()) });
  const ids = await emitMany([api.url], m.merchantId, EVENTS);
  await eventually(async () => held.length === 32, {
    timeoutMs: 30_000,
    what: () => `32 attempts in flight at the receiver (${held.length})`,
  });
  const claimed = `select count(*)::int as n from deliveries where webhook_id = $1 and locked_by is not null`;
  await eventually(async () => (await count(claimed, [m.webhookId])) === EVENTS, {
    what: 'the worker to claim every delivery (32 sending, 8 held)',
  });

  const exit = new Promise<{ code: number | null; ms: number }>((resolve) => {
    const started = performance.now();
    first.child.once('exit', (code) => resolve({ code, ms: performance.now() - started }));
  });
  first.child.kill('SIGTERM');
  // Released only once the worker has taken the signal (its /readyz no longer answers 200): released before,
  // the answers could reach it first, and the held 8 would be sent into the free slots as any running worker
  // sends them (seen on a host loaded by three test files at a time).
  const serving = () =>
    fetch(`${first.url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  await eventually(async () => !(await serving()), {
    intervalMs: 10,
    what: 'the worker to take the SIGTERM',
  });
  holding = false;
  // Half the attempts under way get their answer within the grace; the other half never do.
  held.splice(0, 16).forEach((release) => release());
  const { code, ms } = await exit;
  expect(code).toBe(0);
  expect(ms).toBeLessThan(GRACE_MS);

  // Every claim given back: the 16 answered are recorded, the rest wait, due now, for any worker.
  expect(await count(claimed, [m.webhookId])).toBe(0);
  const succeeded = `select count(*)::int as n from deliveries where webhook_id = $1 and status = 'succeeded'`;
  expect(await count(succeeded, [m.webhookId])).toBe(16);
  expect(await count(`select count(*)::int as n from delivery_attempts`)).toBe(16);
  const due = `select count(*)::int as n from deliveries
     where webhook_id = $1 and status = 'pending' and next_attempt_at <= now() and attempt_count = 0`;
  expect(await count(due, [m.webhookId])).toBe(EVENTS - 16);

  const ready = performance.now();
  await startProcess(database.url!, { ...WORKER, SVC_METRICS_PORT: String(await freePort()) });
  await eventually(async () => (await count(succeeded, [m.webhookId])) === EVENTS, {
    timeoutMs: 20_000,
    what: 'the second worker to deliver what the first gave back',
  });
  expect(performance.now() - ready).toBeLessThan(30_000); // not after the 62 s lease
  expect(answered.toSorted()).toEqual(ids.toSorted());
  expect(await count(`select count(*)::int as n from delivery_attempts`)).toBe(EVENTS);
  expect(rx.overlaps).toEqual([]);
  held.forEach((release) => release());
}, 180_000);
