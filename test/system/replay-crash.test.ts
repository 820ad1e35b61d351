// A replay by filter survives the worker process running it being SIGKILLed half-way (API.md section 12.2: "runs
// in the background on any worker, survives restarts"): a worker process (`SVC_ROLE=worker`) takes the replay,
// is killed with no chance to clean up after it has queued part of it, and a worker started afterwards finishes
// it from the row's cursor, so each event is queued exactly once and the counts add up. (pg project only: two
// processes cannot open one PGlite; test/webhooks/replays.test.ts continues a half-done replay on both.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/outbox/index.ts';
import { mergeData, sampleData } from '../../src/modules/events/index.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, killAll, startProcess, type ServiceProcess } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { base, createWebhook } from '../webhooks/helpers.ts';

// The API is this process's service with no loops of its own: only the worker processes advance the replay.
let api: TestService;
let client: pg.Client;
let rx: Receiver;
let m: TestMerchant;
beforeAll(async () => {
  [api, rx] = await Promise.all([startTestService(), startReceiver()]);
  client = new pg.Client({ connectionString: api.databaseUrl });
  await client.connect();
  m = await signupMerchant(api.app, 'Replay crash');
}, 120_000);
afterAll(async () => {
  killAll();
  await client?.end();
  await rx?.close();
  await api?.close();
});

// One in ten events is of the type the endpoint hears: the walk is long (many batches of 1,000), the sends few.
const EVENTS = 20_000;
const HEARD_EVERY = 10;

/** The merchant's events, recorded in statements of 5,000: those of the heard type, by id. */
async function recordBacklog(): Promise<Set<string>> {
  const heard = new Set<string>();
  for (let start = 0; start < EVENTS; start += 5000) {
    const events = Array.from({ length: 5000 }, (_, k) => {
      const i = start + k;
      const type = i % HEARD_EVERY === 0 ? 'order.created' : 'order.paid';
      return {
        merchantId: m.merchantId,
        mode: 'test' as const,
        type,
        data: mergeData(sampleData(type), { id: `ord_crash_${i}` }),
      };
    });
    const recorded = await api.ctx.db.transaction().execute((trx) => emitEvents(trx, events, new Date()));
    recorded.forEach((e, k) => events[k]!.type === 'order.created' && heard.add(e.id));
  }
  return heard;
}

interface Row {
  status: string;
  matched: number;
  queued: number;
  skipped: number;
}

async function replayRow(id: string): Promise<Row> {
  const { rows } = await client.query<Row>(
    'select status, matched, queued, skipped from webhook_replays where id = $1',
    [id],
  );
  return rows[0]!;
}

const worker = async (): Promise<ServiceProcess> =>
  startProcess(api.databaseUrl!, { SVC_ROLE: 'worker', SVC_METRICS_PORT: String(await freePort()) });

it('is finished by another worker after the one running it is SIGKILLed, each event queued once', async () => {
  const since = new Date(Date.now() - 1000).toISOString();
  const heard = await recordBacklog();
  expect(heard.size).toBe(EVENTS / HEARD_EVERY);
  const hook = await createWebhook(api, m, `${rx.url}/crash`, ['order.created']);

  const a = await worker();
  const res = await api.app.inject({
    method: 'POST',
    url: `${base}/${hook.id}/replays`,
    headers: m.auth,
    payload: { since, status: 'all' },
  });
  expect(res.statusCode, res.body).toBe(202);
  const replay = res.json<{ data: { id: string; matched: number } }>().data;
  expect(replay.matched).toBe(EVENTS);

  // A's loop takes it within its poll; once A has committed a batch, it is killed where it stands
  await eventually(
    async () => {
      const row = await replayRow(replay.id);
      return row.queued + row.skipped > 0;
    },
    { timeoutMs: 30_000, intervalMs: 5, what: 'worker A to commit a first batch of the replay' },
  );
  a.child.kill('SIGKILL');
  await new Promise<void>((resolve) =>
    a.child.exitCode !== null || a.child.signalCode ? resolve() : a.child.once('exit', () => resolve()),
  );
  expect(a.child.signalCode).toBe('SIGKILL');

  // what A left, once PostgreSQL has rolled back the batch A may have been in (its row lock goes with it)
  const left = await eventually(
    async () => {
      const { rows } = await client.query<{ locked: boolean }>(
        `select not exists (select 1 from webhook_replays where id = $1 for update skip locked) as locked`,
        [replay.id],
      );
      return !rows[0]!.locked && (await replayRow(replay.id));
    },
    { timeoutMs: 30_000, intervalMs: 50, what: "worker A's transaction to end" },
  );
  expect(left.status).toBe('running');
  const walkedByA = left.queued + left.skipped;
  expect(walkedByA).toBeGreaterThan(0);
  expect(walkedByA).toBeLessThan(EVENTS);

  await worker();
  const done = await eventually(
    async () => {
      const row = await replayRow(replay.id);
      return row.status !== 'running' && row;
    },
    { timeoutMs: 90_000, intervalMs: 100, what: 'worker B to finish the replay' },
  );
  expect(done).toEqual({
    status: 'done',
    matched: EVENTS,
    queued: heard.size,
    skipped: EVENTS - heard.size,
  });

  // one delivery of each heard event, none of another, none twice
  const { rows: made } = await client.query<{ event_id: string; n: number }>(
    'select event_id, count(*)::int as n from deliveries where webhook_id = $1 group by event_id',
    [hook.id],
  );
  expect(made.filter((d) => d.n !== 1)).toEqual([]);
  expect(new Set(made.map((d) => d.event_id))).toEqual(heard);
}, 240_000);
