// The faults of API.md 12.1 on a fleet of an `api` and a `worker` process on one PostgreSQL (a cluster of this
// file's own, since one fault restarts it), each under a steady load: 40 events a second ingested through the
// api process, delivered by the worker to a real receiver, and an API key created every second (an audit entry
// in its transaction). Through every fault: no accepted event and no audit entry is lost, no answer is a 5xx
// other than 503 while the database cannot be reached, the merchant's sequence stays gapless, no attempt is
// sent twice at once, and delivery throughput is back to at least 95% of before within 60 s of the fault's
// end. The api process reads through a streaming replica (DATABASE_REPLICA_URL), the last fault stops it: its
// reads fall back to the primary without an error. (pg project only: see vitest.config.ts.)
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/postgres.ts';
import { startStandby, type Standby } from '../support/standby.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { freePort, killAll, startProcess, type ServiceProcess } from '../support/processes.ts';
import { merchantWithWebhook } from './webhooks-processes.ts';
import { deliveredPerSecond, fleetLoad, type Answer } from './fleet-load.ts';

const DB = 'svc_faults';
const RATE = 40;
const WINDOW_MS = 3000;
// A 2-s attempt timeout makes a lease 6 s: what a killed worker held is sent again within seconds.
const ENV = { SVC_WEBHOOK_TIMEOUT_MS: '2000', SVC_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.5,1,1,1,1' };

let cluster: Cluster;
let standby: Standby;
let rx: Receiver;
let api: ServiceProcess;
let worker: ServiceProcess;
let merchant: { id: string; token: string };

const startWorker = async () =>
  startProcess(cluster.url(DB), { ...ENV, SVC_ROLE: 'worker', SVC_METRICS_PORT: String(await freePort()) });

beforeAll(async () => {
  cluster = await startCluster();
  const root = new pg.Client({ connectionString: cluster.url('postgres') });
  await root.connect();
  await root.query(`create database ${DB}`);
  await root.end();
  standby = await startStandby(cluster, DB);
  rx = await startReceiver(() => ({ status: 200 }));
  api = await startProcess(cluster.url(DB), { ...ENV, SVC_ROLE: 'api', DATABASE_REPLICA_URL: standby.url });
  worker = await startWorker();
  const m = await merchantWithWebhook(api.url, `${rx.url}/faults`);
  merchant = { id: m.merchantId, token: m.token };
}, 180_000);
afterAll(async () => {
  killAll();
  await rx?.close();
  standby?.remove();
  cluster?.stop();
});

/** One statement on a connection of its own (the cluster may have restarted since the last). */
async function query<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url(DB) });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** The fault under a fresh load, then every promise of API.md 12.1 checked; what it measured. */
async function throughFault(fault: () => Promise<void>) {
  const load = fleetLoad(() => [api.url], merchant, RATE);
  await eventually(async () => rx.received.length > 0 && load.events.length >= RATE * 4, {
    timeoutMs: 30_000,
    what: 'four seconds of load before the fault',
  });
  const before = deliveredPerSecond(rx, Date.now() - WINDOW_MS, Date.now());
  await fault();
  const ended = Date.now();
  let back = NaN;
  await eventually(
    async () => {
      const now = Date.now();
      if (now - ended < WINDOW_MS || deliveredPerSecond(rx, now - WINDOW_MS, now) < 0.95 * before)
        return false;
      back = now - ended;
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: () => `delivery throughput back to 95% of ${before}/s` },
  );
  await load.stop();

  const wrong = (answers: Answer[]) =>
    answers.filter((a) => !(a.status >= 200 && a.status < 300) && a.status !== 503).map((a) => a.status);
  expect(wrong(load.events), 'event answers other than 2xx and 503').toEqual([]);
  expect(wrong(load.keys), 'key answers other than 2xx and 503').toEqual([]);
  expect(wrong(load.reads), 'list answers other than 2xx and 503').toEqual([]);
  expect(load.reads.filter((a) => a.status === 200).length).toBeGreaterThan(0);

  const accepted = load.events.flatMap((a) => (a.id ? [a.id] : []));
  const missing = () => {
    const seen = new Set(rx.received.map((r) => String(r.headers['webhook-id'])));
    return accepted.filter((id) => !seen.has(id));
  };
  await eventually(async () => missing().length === 0, {
    timeoutMs: 60_000,
    intervalMs: 250,
    what: () => `${missing().length} of ${accepted.length} accepted events to be delivered`,
  });
  expect(rx.overlaps).toEqual([]);

  const sequence = await query<{ n: number; first: string; last: string }>(
    `select count(*)::int as n, min(sequence) as first, max(sequence) as last
       from events where merchant_id = $1 and mode = 'test'`,
    [merchant.id],
  );
  expect(Number(sequence[0]!.first)).toBe(1);
  expect(Number(sequence[0]!.last)).toBe(sequence[0]!.n);

  const keys = load.keys.flatMap((a) => (a.id ? [a.id] : []));
  const audited = await query<{ n: number }>(
    `select count(distinct entity_id)::int as n from audit_logs
      where merchant_id = $1 and action = 'api_key.created' and entity_id = any($2)`,
    [merchant.id, keys],
  );
  expect(audited[0]!.n).toBe(keys.length);
  return {
    before,
    back,
    events: accepted.length,
    keys: keys.length,
    reads: load.reads.length,
    refused: load.events.length - accepted.length,
  };
}

describe('a fleet under load, through', () => {
  it('every service connection terminated', async () => {
    const figures = await throughFault(async () => {
      const killed = await query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        [DB],
      );
      expect(killed.length).toBeGreaterThan(2);
    });
    console.log('every connection terminated:', figures);
  }, 180_000);

  it('the pool held by slow statements for 10 s', async () => {
    const figures = await throughFault(async () => {
      // Every write of an event waits behind this lock: the api's pool fills with statements that wait.
      const holder = new pg.Client({ connectionString: cluster.url(DB) });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table events in exclusive mode');
        await holder.query('select pg_sleep(10)');
        await holder.query('commit');
      } finally {
        await holder.end();
      }
    });
    console.log('pool held 10 s:', figures);
  }, 180_000);

  it('a worker SIGKILLed every 5 s for a minute, and restarted', async () => {
    const figures = await throughFault(async () => {
      const until = Date.now() + 60_000;
      while (Date.now() < until) {
        const killedAt = Date.now();
        worker.child.kill('SIGKILL');
        worker = await startWorker();
        await eventually(async () => Date.now() - killedAt >= 5000, {
          intervalMs: 100,
          what: 'the next kill',
        });
      }
    });
    console.log('worker killed every 5 s:', figures);
  }, 240_000);

  it('a replica stopped', async () => {
    const replicaState = async () =>
      ((await (await fetch(`${api.url}/readyz`)).json()) as { data: { replicas: { state: string }[] } }).data
        .replicas[0]!.state;
    expect(await replicaState()).toBe('up');
    const figures = await throughFault(async () => {
      standby.stop();
      await eventually(async () => (await replicaState()) === 'down', { what: 'the replica seen down' });
    });
    console.log('replica stopped:', figures);
  }, 180_000);

  it('a restart of PostgreSQL', async () => {
    const figures = await throughFault(() => cluster.restart(3000));
    console.log('PostgreSQL restart:', figures);
  }, 180_000);
});
