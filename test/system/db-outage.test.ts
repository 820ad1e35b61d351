// Two service processes on PostgreSQL, under a steady load of event ingestion with webhook deliveries to a
// real receiver, live through a restart of PostgreSQL and through five connections killed with
// pg_terminate_backend: both stay alive, /readyz goes 503 and back to 200, no request answers 500, writes
// resume within 2 s of the database's return, and every accepted event reaches the receiver.
// (pg project only: an own cluster, since the test restarts it.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleData } from '../../src/modules/events/index.ts';
import { startCluster, type Cluster } from '../support/postgres.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { eventually } from '../support/eventually.ts';
import {
  INTERNAL_TOKEN,
  killAll,
  merchantWithWebhook,
  startProcess,
  type ServiceProcess,
} from './webhooks-processes.ts';

let cluster: Cluster;
let rx: Receiver;
let a: ServiceProcess;
let b: ServiceProcess;
let merchantId: string;
const DB = 'svc_outage';

// A 2 s attempt timeout makes a lease 6 s, so a delivery whose outcome was lost with the database is sent
// again within seconds.
const env = { SVC_WEBHOOK_TIMEOUT_MS: '2000', SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.5,1,1,1,1' };

beforeAll(async () => {
  cluster = await startCluster();
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query(`create database ${DB}`);
  await admin.end();
  rx = await startReceiver(() => ({ status: 200 }));
  a = await startProcess(cluster.url(DB), env);
  b = await startProcess(cluster.url(DB), env);
  merchantId = (await merchantWithWebhook(a.url, `${rx.url}/outage`)).merchantId;
}, 180_000);
afterAll(async () => {
  killAll();
  await rx?.close();
  cluster?.stop();
});

interface Write {
  at: number;
  base: string;
  status: number;
  id?: string;
}

/** Ingests events through both processes until stopped, recording every answer. */
function load() {
  const writes: Write[] = [];
  let running = true;
  let n = 0;
  const workers = [a.url, b.url, a.url, b.url].map(async (base) => {
    while (running) {
      const res = await fetch(`${base}/internal/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          merchant_id: merchantId,
          mode: 'test',
          type: 'order.created',
          data: { ...sampleData('order.created'), n: n++ },
        }),
      }).catch(() => undefined);
      const write: Write = { at: Date.now(), base, status: res?.status ?? 0 };
      if (res?.status === 202) write.id = ((await res.json()) as { data: { id: string } }).data.id;
      else await res?.text();
      writes.push(write);
      // eslint-disable-next-line no-restricted-syntax -- the load's pace (about 100 writes/s per loop), not a wait
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  return {
    writes,
    /** Until both processes accepted a write after `since` (epoch ms). */
    acceptedSince: (since: number) =>
      eventually(
        async () =>
          [a.url, b.url].every((base) =>
            writes.some((w) => w.base === base && w.at > since && w.status === 202),
          ),
        { what: 'a write accepted by each process' },
      ),
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

const readyz = (base: string) =>
  fetch(`${base}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

function alive(p: ServiceProcess) {
  return p.child.exitCode === null && p.child.signalCode === null;
}

async function allDelivered(ids: string[]) {
  const missing = () => {
    const seen = new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
    return ids.filter((id) => !seen.has(id));
  };
  await eventually(async () => missing().length === 0, {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: () => `${missing().length} of ${ids.length} events to be delivered`,
  });
}

it('lives through a restart of PostgreSQL under write load', async () => {
  const traffic = load();
  await traffic.acceptedSince(0);

  // /readyz of both processes, sampled throughout
  const samples: { base: string; status: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const base of [a.url, b.url]) samples.push({ base, status: await readyz(base) });
      // eslint-disable-next-line no-restricted-syntax -- the sampling period, not a wait
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  await cluster.restart(3000);
  const back = Date.now();
  // writes resume within 2 s on both processes
  for (const base of [a.url, b.url]) {
    await expect
      .poll(() => traffic.writes.some((w) => w.base === base && w.at > back && w.status === 202), {
        timeout: 2000,
        interval: 20,
      })
      .toBe(true);
  }
  const resumed = Date.now() - back;
  // /readyz comes back on both
  for (const base of [a.url, b.url])
    await expect.poll(() => readyz(base), { timeout: 15_000, interval: 100 }).toBe(200);
  // until the sampler too has seen both ready again
  await eventually(
    async () => [a.url, b.url].every((base) => samples.filter((s) => s.base === base).at(-1)?.status === 200),
    { what: 'the sampler to see both processes ready' },
  );
  sampling = false;
  await sampler;
  await traffic.stop();

  expect(alive(a) && alive(b)).toBe(true);
  for (const base of [a.url, b.url]) {
    expect(samples.some((s) => s.base === base && s.status === 503)).toBe(true);
    expect(samples.filter((s) => s.base === base).at(-1)?.status).toBe(200);
  }
  const statuses = new Set(traffic.writes.map((w) => w.status));
  expect([...statuses].filter((s) => s !== 202 && s !== 503)).toEqual([]);
  expect(traffic.writes.filter((w) => w.status === 503).length).toBeGreaterThan(0);
  const accepted = traffic.writes.flatMap((w) => (w.id ? [w.id] : []));
  expect(accepted.length).toBeGreaterThan(10);
  await allDelivered(accepted);
  console.log(`restart: writes resumed ${resumed} ms after the database returned; ${accepted.length} events`);
});

it('lives through five service connections killed with pg_terminate_backend', async () => {
  const admin = new pg.Client({ connectionString: cluster.url(DB) });
  await admin.connect();
  const traffic = load();
  await traffic.acceptedSince(0);
  const killed: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      [DB],
    );
    const victim = rows[Math.floor(Math.random() * rows.length)]!.pid;
    const at = Date.now();
    await admin.query('select pg_terminate_backend($1)', [victim]);
    killed.push(victim);
    await traffic.acceptedSince(at); // both processes write again before the next kill
  }
  const last = Date.now();
  // still writing through both processes after the last kill
  for (const base of [a.url, b.url]) {
    await expect
      .poll(() => traffic.writes.some((w) => w.base === base && w.at > last && w.status === 202), {
        timeout: 2000,
        interval: 20,
      })
      .toBe(true);
  }
  for (const base of [a.url, b.url])
    await expect.poll(() => readyz(base), { timeout: 15_000, interval: 100 }).toBe(200);
  await traffic.stop();
  await admin.end();

  expect(new Set(killed).size).toBe(5);
  expect(alive(a) && alive(b)).toBe(true);
  const statuses = new Set(traffic.writes.map((w) => w.status));
  expect([...statuses].filter((s) => s !== 202 && s !== 503)).toEqual([]);
  const accepted = traffic.writes.flatMap((w) => (w.id ? [w.id] : []));
  await allDelivered(accepted);
});
