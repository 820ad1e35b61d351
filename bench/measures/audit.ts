// Audit page: GET /developer/logs?limit=50 for a merchant with ENTRIES entries, seeded by one SQL statement
// with valid time-sortable ids: the first page, a filtered page (`action=webhook.*`) and a page behind a deep
// cursor, each under CONNECTIONS concurrent dashboard readers.
import pg from 'pg';
import type { LoadResult } from '../drivers/load.ts';
import { missing, row, type Measure, type Row } from '../lib/bench.ts';
import { cpuSplit, meteredRun } from '../lib/rounds.ts';
import { topStatements } from '../lib/statements.ts';

const ENTRIES = 1_000_000;
const CONNECTIONS = 4;
const P99 = { of: 'value', op: '<=', limit: 20 } as const;
const PATH = '/api/v1/merchant/developer/logs';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** src/lib/ids.ts in SQL: 10 Crockford base32 characters of the millisecond time in `ms`. */
export const TIME_CHARS = Array.from(
  { length: 10 },
  (_, i) => `substr('${ALPHABET}', ((ms >> ${5 * (9 - i)}) & 31)::int + 1, 1)`,
).join(' || ');

const ACTIONS: [string, string][] = [
  ['api_key.created', 'api_key'],
  ['webhook.created', 'webhook'],
  ['developer_app.updated', 'developer_app'],
  ['oauth.token_refreshed', 'oauth_grant'],
  ['webhook.delivery_retried', 'webhook_delivery'],
  ['oauth.token_issued', 'oauth_grant'],
  ['api_key.rotated', 'api_key'],
  ['webhook.updated', 'webhook'],
];

// One entry every 500 ms up to a minute ago; the random part is hex (a subset of the alphabet) from md5.
export const SEED = `
insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
select 'log_' || ${TIME_CHARS} || substr(md5(g::text || $1), 1, 20),
       $1, 'test',
       (array[${ACTIONS.map(([a]) => `'${a}'`).join(',')}])[g % ${ACTIONS.length} + 1],
       (array[${ACTIONS.map(([, t]) => `'${t}'`).join(',')}])[g % ${ACTIONS.length} + 1],
       'ent_' || substr(md5(g::text), 1, 26),
       '{"actor":{"type":"user","id":"usr_bench"},"ip":"127.0.0.1","user_agent":"bench/1.0","request_id":"req_' || g || '","name":"bench"}',
       to_timestamp(ms / 1000.0)
from generate_series(1, $2::int) g,
     lateral (select ((extract(epoch from now()) * 1000)::bigint - 60000 - ($2::bigint - g) * 500) as ms) t`;

export const COUNTERS = `
insert into audit_counts (merchant_id, mode, key, shard, n)
select $1, 'test', key, 0, count(*)
from audit_logs,
     lateral unnest(array['*', 'family:' || family, 'action:' || action, 'entity_type:' || entity_type]) as key
where merchant_id = $1 and mode = 'test'
group by key
on conflict (merchant_id, mode, key, shard) do update set n = audit_counts.n + excluded.n`;

/**
 * `entries` entries for one merchant, by set-based SQL. A million entries inserted one by one into five
 * secondary indexes took 90-200 s here; dropped and rebuilt around the insert (a sorted bulk build each), the
 * seed takes a fraction of that.
 */
export async function seedAudit(db: pg.Client, merchantId: string, entries: number): Promise<void> {
  const indexes = await db.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
      where tablename = 'audit_logs' and indexname not in
        (select conname from pg_constraint where conrelid = 'audit_logs'::regclass)`,
  );
  for (const index of indexes.rows) await db.query(`drop index ${index.name}`);
  await db.query(SEED, [merchantId, entries]);
  await db.query(`set maintenance_work_mem = '256MB'`);
  for (const index of indexes.rows) await db.query(index.def);
  // The service keeps page counts in counters (0005_audit_counts.sql) that its writes maintain: fill them
  // for the seeded entries as those writes would have.
  const counters = await db.query<{ t: string | null }>(`select to_regclass('audit_counts')::text as t`);
  if (counters.rows[0]?.t) await db.query(COUNTERS, [merchantId]);
  await db.query('analyze audit_logs');
}

/**
 * Queues the merchant's seeded entries for the service's sealer, as its writers queue theirs, and waits until
 * the sealer has chained them all (an upgrade seals the entries of before the chain the same way): the
 * seconds it took, or undefined where the service has no chain.
 */
export async function sealSeeded(db: pg.Client, merchantId: string): Promise<number | undefined> {
  const queue = await db.query<{ t: string | null }>(`select to_regclass('audit_pending')::text as t`);
  if (!queue.rows[0]?.t) return undefined;
  const t0 = performance.now();
  await db.query(
    `insert into audit_pending (log_id) select id from audit_logs where merchant_id = $1 on conflict do nothing`,
    [merchantId],
  );
  // `exists`, not a count: counting a queue of up to a million rows every half second is PostgreSQL work
  // that this row would charge to the sealer.
  for (;;) {
    const left = await db.query<{ any: boolean }>('select exists (select 1 from audit_pending) as any');
    if (!left.rows[0]!.any) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - t0) / 1000;
  // What autovacuum does in production a while after the burst: the queue's dead rows, and fresh statistics.
  await db.query('vacuum analyze audit_pending, audit_chain');
  return seconds;
}

export const audit: Measure = {
  name: 'audit',
  async run(b) {
    const probe = await b.api.call('GET', `${PATH}?limit=1`, { token: b.merchant.token });
    if (probe.status !== 200) {
      return [missing('audit page p99', 'ms', `feature missing (${probe.status})`, P99)];
    }
    const m = await b.api.signup('Bench audit');
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    let deepCursor: string;
    let backlog: Row | undefined;
    try {
      const t0 = performance.now();
      await seedAudit(db, m.merchantId, ENTRIES);
      b.log(`audit: ${ENTRIES} entries seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const sealCpu = b.serviceCpu();
      const sealing = await sealSeeded(db, m.merchantId);
      if (sealing !== undefined) {
        const cpu = (b.serviceCpu() - sealCpu) / ENTRIES;
        b.log(`audit: ${ENTRIES} seeded entries sealed in ${sealing.toFixed(1)} s`);
        backlog = row(
          'audit sealer backlog',
          'entries/s',
          ENTRIES / sealing,
          null,
          undefined,
          `${ENTRIES} entries of before the chain sealed by the service's sealer in ${sealing.toFixed(0)} s; ` +
            `CPU per entry ${(cpu * 1000).toFixed(1)} us (Node and PostgreSQL)`,
        );
      }
      const deep = await db.query<{ id: string }>(
        `select id from audit_logs where merchant_id = $1 and mode = 'test' order by id desc offset $2 limit 1`,
        [m.merchantId, Math.floor(ENTRIES * 0.9)],
      );
      deepCursor = deep.rows[0]!.id;
    } finally {
      await db.end();
    }

    const pages: [string, string][] = [
      ['audit page p99', `${PATH}?limit=50`],
      ['audit page webhook.* p99', `${PATH}?limit=50&action=webhook.*`],
      ['audit page deep cursor p99', `${PATH}?limit=50&starting_after=${deepCursor}`],
    ];
    const headers = { authorization: `Bearer ${m.token}` };
    const duration = Math.max(3, Math.round(b.duration / 2));
    const rows: Row[] = [];
    for (const [name, path] of pages) {
      const check = await b.api.call('GET', path, { token: m.token });
      if (check.status !== 200 || check.body.data.items.length !== 50) {
        rows.push(missing(name, 'ms', `unexpected answer ${check.status}`, P99));
        continue;
      }
      await b.load.call('cannon', {
        url: b.service.url + path,
        headers,
        connections: CONNECTIONS,
        duration: 1,
      });
      if (b.profile) await topStatements(b.cluster.url('svc')); // reset: what follows is this page alone
      const r = await meteredRun(
        b.serviceCpu,
        () =>
          b.load.call<LoadResult>('cannon', {
            url: b.service.url + path,
            headers,
            connections: CONNECTIONS,
            duration,
          }),
        b.postgresCpu,
      );
      b.log(`${name}: ${r.p99} ms, p50 ${r.p50} ms, ${r.rps.toFixed(0)} req/s, CPU/page ${cpuSplit(r)}`);
      if (b.profile) {
        for (const t of await topStatements(b.cluster.url('svc'), 10)) {
          const perPage = (t.calls / r.total).toFixed(2);
          b.log(`  ${perPage}/page, ${t.mean_ms} ms each, planning ${t.plan_ms} ms in all: ${t.query}`);
        }
      }
      rows.push(
        row(
          name,
          'ms',
          r.p99,
          null,
          P99,
          `p50 ${r.p50} ms, ${r.rps.toFixed(0)} req/s, ${CONNECTIONS} connections, ${ENTRIES} entries; ` +
            `CPU per page ${cpuSplit(r)}`,
        ),
      );
    }
    rows.push(await exportAll(b, m.token));
    if (backlog) rows.push(backlog);
    return rows;
  },
};

/** The whole log as CSV through the export route: its time, and the service's peak RSS meanwhile. */
async function exportAll(b: Parameters<Measure['run']>[0], token: string): Promise<Row> {
  const name = 'audit export 1M (CSV) peak RSS';
  const target = { of: 'value', op: '<=', limit: 250 } as const;
  b.service.windowPeakRssMb();
  const t0 = performance.now();
  const res = await fetch(`${b.service.url}${PATH}/export?format=csv`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200 || !res.body) return missing(name, 'MB', `feature missing (${res.status})`, target);
  let lines = 0;
  const reader = res.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    for (const byte of r.value) if (byte === 10) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  const peak = b.service.windowPeakRssMb();
  b.log(`audit export: ${lines - 1} entries in ${seconds.toFixed(1)} s, peak RSS ${peak.toFixed(0)} MB`);
  return row(
    name,
    'MB',
    peak,
    null,
    target,
    `${lines - 1} entries in ${seconds.toFixed(1)} s (${Math.round((lines - 1) / seconds)}/s), streamed`,
  );
}
