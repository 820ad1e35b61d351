// Read replicas (API.md 12.1) on a real streaming replica. The test makes its own small cluster (the shared
// one stays as it is), a hot standby of it with `pg_basebackup -R` in a second data directory on another
// port, and two services on the pair, as two processes of a fleet would be:
//   A: SVC_REPLICA_MAX_LAG_MS=1000, the default stickiness: the rules as an operator gets them;
//   B: a lag bound of ten minutes and no stickiness, so that it keeps reading a paused replica: what it
//      answers then is the replica's old state, which shows where a read went by what it holds.
// The replica is made to lag with pg_wal_replay_pause(): a write on the primary is then on the primary only,
// which the test checks on both servers directly before it trusts any absence in an answer.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { lsnValue, Replica } from '../../src/db/replica.ts';
import { createService, type Service } from '../../src/server.ts';
import { eventually } from '../support/eventually.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startCluster, type Cluster } from '../support/postgres.ts';
import { startStandby, type Standby } from '../support/standby.ts';
import { MASTER_KEY } from '../support/service.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

let cluster: Cluster;
let standby: Standby;
let primary: Database;
let a: Service;
let b: Service;
let m: TestMerchant;

async function startService(env: Record<string, string>): Promise<Service> {
  const config = loadConfig({
    SVC_LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT: 'off',
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_WORKERS: 'off',
    PORT: '0',
    SVC_METRICS_PORT: '0',
    DATABASE_URL: cluster.url('svc'),
    DATABASE_REPLICA_URL: standby.url,
    ...env,
  });
  const svc = await createService(config);
  await svc.app.ready();
  return svc;
}

interface ReplicaView {
  name: string;
  state: string;
  lag_ms: number | null;
}

async function readyz(svc: Service): Promise<ReplicaView> {
  const res = await svc.app.inject({ url: '/readyz' });
  expect(res.statusCode).toBe(200);
  const { replicas } = res.json<{ data: { status: string; replicas: ReplicaView[] } }>().data;
  expect(replicas).toHaveLength(1);
  return replicas[0]!;
}

/** One scrape of the metrics listener: `name{labels}` -> value. */
async function scrape(svc: Service): Promise<Map<string, number>> {
  const res = await fetch(`${svc.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  const values = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}

const READS = 'svc_db_lag_tolerant_reads_total';
const reads = async (svc: Service, servedBy: string, reason: string) =>
  (await scrape(svc)).get(`${READS}{served_by="${servedBy}",reason="${reason}"}`) ?? 0;

const merchantCall = (svc: Service, method: 'GET' | 'POST', url: string, extra: object = {}) =>
  svc.app.inject({ method, url: `/api/v1/merchant${url}`, headers: { ...m.auth }, ...extra });

/** The actions of the merchant's audit page, as the service answers it. */
async function auditActions(svc: Service): Promise<string[]> {
  const res = await merchantCall(svc, 'GET', '/developer/logs?limit=100');
  expect(res.statusCode).toBe(200);
  return res.json<{ data: { items: { action: string }[] } }>().data.items.map((e) => e.action);
}

const keysCreated = (actions: string[]) => actions.filter((x) => x === 'api_key.created').length;

/** How many audit entries of this action the merchant has, on the primary and on the standby, read directly. */
async function entriesOn(action: string): Promise<{ primary: number; standby: number }> {
  const onPrimary = await sql<{ n: number }>`
    select count(*)::int as n from audit_logs where merchant_id = ${m.merchantId} and action = ${action}
  `.execute(primary.db);
  const onStandby = await standby.query<{ n: number }>(
    'select count(*)::int as n from audit_logs where merchant_id = $1 and action = $2',
    [m.merchantId, action],
  );
  return { primary: onPrimary.rows[0]!.n, standby: onStandby[0]!.n };
}

const createKey = (svc: Service, headers: Record<string, string> = {}) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/api-keys',
    headers: { ...m.auth, 'x-svc-mode': 'test', ...headers },
    payload: {},
  });

beforeAll(async () => {
  // Small: three servers run beside the suite's shared cluster. initdb's defaults (wal_level=replica, ten WAL
  // senders, `host replication all 127.0.0.1/32 trust` in pg_hba.conf) already allow the base backup.
  cluster = await startCluster({ settings: { shared_buffers: "'32MB'", max_connections: 100 } });
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query('create database svc');
  await admin.end();
  primary = await openDatabase({ databaseUrl: cluster.url('svc') }); // migrates it
  standby = await startStandby(cluster);
  a = await startService({ SVC_REPLICA_MAX_LAG_MS: '1000' });
  b = await startService({ SVC_REPLICA_MAX_LAG_MS: '600000', SVC_REPLICA_STICKY_MS: '0' });
  m = await signupMerchant(a.app);
}, 180_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await primary?.close();
  standby?.remove();
  cluster?.stop();
});

describe('read replicas on a streaming standby', () => {
  it('a fresh replica is up in /readyz and the metrics, and serves the listed reads', async () => {
    const view = await eventually(
      async () => {
        const r = await readyz(a);
        return r.state === 'up' && r;
      },
      { what: 'the replica to be up' },
    );
    expect(view.name).toBe(`127.0.0.1:${standby.port}`);
    expect(view.lag_ms).toBeGreaterThanOrEqual(0);
    expect(view.lag_ms).toBeLessThanOrEqual(1000);
    const metrics = await scrape(a);
    expect(metrics.get(`svc_db_replica_state{replica="${view.name}",state="up"}`)).toBe(1);
    expect(metrics.get(`svc_db_replica_state{replica="${view.name}",state="down"}`)).toBe(0);
    expect(metrics.get(`svc_db_replica_lag_seconds{replica="${view.name}"}`)).toBeLessThanOrEqual(1);

    await eventually(async () => (await readyz(b)).state === 'up', { what: 'B to use the replica' });
    // B never sticks: each listed read of the merchant is the replica's
    const before = await reads(b, 'replica', 'fresh');
    for (const url of ['/events', '/webhooks', '/webhook-attempts', '/developer/logs', '/developer/requests'])
      expect((await merchantCall(b, 'GET', url)).statusCode).toBe(200);
    expect(await reads(b, 'replica', 'fresh')).toBe(before + 5);
    // a read that is not listed (the account) never counts: it is the primary's, untouched
    const counted = await reads(b, 'replica', 'fresh');
    expect((await merchantCall(b, 'GET', '/me')).statusCode).toBe(200);
    expect(await reads(b, 'replica', 'fresh')).toBe(counted);
  });

  it('while replay is paused: a stale replica answers B, the writer reads its write on A, keys and idempotency use the primary', async () => {
    // one entry that the standby has replayed before the pause, so that its old page is not empty
    expect((await createKey(a)).statusCode).toBe(201);
    await eventually(
      async () => {
        const on = await entriesOn('api_key.created');
        return on.primary === 1 && on.standby === 1;
      },
      { what: 'the standby to replay the first key' },
    );
    await standby.query('select pg_wal_replay_pause()');
    await eventually(
      async () =>
        (await standby.query<{ s: string }>('select pg_get_wal_replay_pause_state() as s'))[0]!.s ===
        'paused',
      { what: 'replay to pause' },
    );
    const created = await createKey(a);
    expect(created.statusCode).toBe(201);
    const key = created.json<{ data: { id: string; secret_key: string } }>().data;
    // the write is on the primary and not on the standby: what B shows below is the standby's
    expect(await entriesOn('api_key.created')).toEqual({ primary: 2, standby: 1 });

    // B reads the replica (lag under its ten minutes): the merchant's page as the standby has it, one key
    const fresh = await reads(b, 'replica', 'fresh');
    expect(keysCreated(await auditActions(b))).toBe(1);
    expect(await reads(b, 'replica', 'fresh')).toBe(fresh + 1);

    // A: the merchant that wrote reads the primary within SVC_REPLICA_STICKY_MS: both keys
    const sticky = await reads(a, 'primary', 'sticky');
    expect(keysCreated(await auditActions(a))).toBe(2);
    expect(await reads(a, 'primary', 'sticky')).toBe(sticky + 1);

    // a key made a moment ago authenticates at once on B: the credential check is the primary's
    const call = await b.app.inject({
      url: '/api/public/v1/payments/supported-countries',
      headers: { authorization: `Bearer ${key.secret_key}` },
    });
    expect(call.statusCode).toBe(200);

    // the same Idempotency-Key on B answers the first call's key, not a second one: looked up on the primary
    const first = await createKey(a, { 'idempotency-key': 'replica-idem-1' });
    const again = await createKey(b, { 'idempotency-key': 'replica-idem-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json<{ data: { id: string } }>().data.id).toBe(
      first.json<{ data: { id: string } }>().data.id,
    );
    expect(await entriesOn('api_key.created')).toEqual({ primary: 3, standby: 1 });
  });

  it('a replica lagging beyond SVC_REPLICA_MAX_LAG_MS is not used: reads go to the primary, without error', async () => {
    const view = await eventually(
      async () => {
        const r = await readyz(a);
        return r.state === 'lagging' && r;
      },
      { what: 'A to find the paused replica lagging' },
    );
    expect(view.lag_ms === null || view.lag_ms > 1000).toBe(true);
    expect((await scrape(a)).get(`svc_db_replica_state{replica="${view.name}",state="lagging"}`)).toBe(1);
    // once the writer's stickiness is over, its reads are the primary's for want of a fresh replica
    const lagging = await reads(a, 'primary', 'no_fresh_replica');
    await eventually(
      async () => {
        expect(keysCreated(await auditActions(a))).toBe(3); // the primary's, by either rule
        return (await reads(a, 'primary', 'no_fresh_replica')) > lagging;
      },
      { what: 'a read of A to go to the primary for the lag', timeoutMs: 15_000 },
    );
    // B allows ten minutes: still on the replica, still without the entries
    expect((await readyz(b)).state).toBe('up');
    expect(keysCreated(await auditActions(b))).toBe(1);
  });

  it('replay resumed: the replica catches up, is up again on A, and B shows what it had missed', async () => {
    await standby.query('select pg_wal_replay_resume()');
    await eventually(async () => (await readyz(a)).state === 'up', { what: 'A to use the replica again' });
    await eventually(async () => keysCreated(await auditActions(b)) === 3, {
      what: "B's replica page to show the entries it had missed",
    });
    expect(await entriesOn('api_key.created')).toEqual({ primary: 3, standby: 3 });
  });

  it('a query the replica cannot serve is run once on the primary and takes the replica out of use', async () => {
    // One Replica through a proxy the test can cut: the same standby, seen by one pool only.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: standby.port });
    let fellBack = 0;
    const states: string[] = [];
    const replica = new Replica('proxied', proxy.through(standby.url), primary.db, {
      changed: (r) => states.push(r.status().state),
      fellBack: () => fellBack++,
    });
    const probe = async () => {
      const lsn = await sql<{ l: string }>`select pg_current_wal_flush_lsn()::text as l`.execute(primary.db);
      await replica.probe(lsnValue(lsn.rows[0]!.l), 60_000);
      return replica.status().state === 'up';
    };
    try {
      await eventually(probe, { what: 'the proxied replica to be up' });
      const standbyAnswer = await sql<{ r: boolean }>`select pg_is_in_recovery() as r`.execute(replica.db);
      expect(standbyAnswer.rows[0]!.r).toBe(true); // served by the standby
      // a fault of the SQL itself is the query's own: an error, never retried
      await expect(sql`select * from no_such_table`.execute(replica.db)).rejects.toThrow(/no_such_table/);
      expect(fellBack).toBe(0);
      proxy.cut();
      // the pooled connection is reset: the same read answers, from the primary
      const after = await sql<{ r: boolean }>`select pg_is_in_recovery() as r`.execute(replica.db);
      expect(after.rows[0]!.r).toBe(false);
      expect(fellBack).toBe(1);
      expect(replica.status().state).toBe('down');
      // a new connection is refused as well: the primary again, no error
      const again = await sql<{ r: boolean }>`select pg_is_in_recovery() as r`.execute(replica.db);
      expect(again.rows[0]!.r).toBe(false);
      expect(fellBack).toBe(2);
      // its probe finds it down while the way is cut, and brings it back once it is open again
      expect(await probe()).toBe(false);
      proxy.restore();
      await eventually(probe, { what: 'the proxied replica to be up again' });
      expect(states).toEqual(['up', 'down', 'up']);
    } finally {
      await replica.close();
      await proxy.close();
    }
  });

  it('a stopped replica causes no error: every listed read answers from the primary; /readyz and /metrics say down', async () => {
    const name = `127.0.0.1:${standby.port}`;
    const onPrimary = async (svc: Service) =>
      (await reads(svc, 'primary', 'replica_failed')) + (await reads(svc, 'primary', 'no_fresh_replica'));
    const before = await onPrimary(b);
    standby.stop();
    const urls = ['/events', '/webhooks', '/webhook-attempts', '/developer/logs', '/developer/requests'];
    const answers = await Promise.all(urls.map((url) => merchantCall(b, 'GET', url)));
    expect(answers.map((r) => r.statusCode)).toEqual(urls.map(() => 200));
    expect(keysCreated(await auditActions(b))).toBe(3);
    expect(await onPrimary(b)).toBeGreaterThanOrEqual(before + urls.length + 1);
    for (const svc of [a, b]) {
      const view = await eventually(
        async () => {
          const r = await readyz(svc);
          return r.state === 'down' && r;
        },
        { what: 'the stopped replica to be down' },
      );
      expect(view.lag_ms).toBeNull();
      const metrics = await scrape(svc);
      expect(metrics.get(`svc_db_replica_state{replica="${name}",state="down"}`)).toBe(1);
      expect(metrics.get(`svc_db_replica_lag_seconds{replica="${name}"}`)).toBeNaN();
    }
    expect((await merchantCall(a, 'GET', '/events')).statusCode).toBe(200);
  });
});
