// Cost against history: deliveries and their attempts kept for the retention period (30 days) grow with
// traffic, and the queue, the claim and the purge must not slow down with them. At each size of history
// (delivered deliveries of another merchant, one attempt each, spread over the last 29 days, seeded by
// set-based SQL), it measures: the delivery throughput of EVENTS fresh events to one webhook; the mean time
// of the claim and outcome statements meanwhile (pg_stat_statements); the retention purge of EXPIRED
// expired deliveries through the service's own purgeExpired; and the tables' and indexes' sizes.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { Bench } from '../lib/bench.ts';
import { nowMs } from '../lib/stats.ts';
import { createWebhook, eventsCall, receiver, succeeded, waitFor } from '../lib/webhooks.ts';
import { TIME_CHARS } from '../lib/audit-seed.ts';
import { openDatabase } from '../../src/db/database.ts';
import { purgeExpired } from '../../src/modules/retention/index.ts';
import type { Curve, CurveResult, Point } from './curve.ts';

const SIZES = [0, 1_000_000, 10_000_000];
const EVENTS = 5000;
const EXPIRED = 100_000;
const INGEST_CONCURRENCY = 64;

/** `n` delivered deliveries of `webhook` with one attempt each, created between `fromDays` and `toDays` ago. */
const HISTORY = `
with d as (
  insert into deliveries (id, webhook_id, merchant_id, mode, event_id, event_type, status, attempt_count,
                          last_attempt_at, last_response_status, created_at, updated_at)
  select 'dlv_' || ${TIME_CHARS} || substr(md5(g::text || $5), 1, 24), w.id, w.merchant_id, w.mode,
         'evt_h' || $5 || g, 'order.created', 'succeeded', 1, at, 204, at, at
  from webhooks w, generate_series(1, $2::int) g,
       lateral (select now() - make_interval(secs => 86400 * ($3::float8 - ($3::float8 - $4::float8) * g / $2)) as at) a,
       lateral (select (extract(epoch from at) * 1000)::bigint as ms) t
  where w.id = $1
  returning id, created_at, merchant_id, mode, webhook_id, event_id, event_type
)
insert into delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_status, response_body,
                               merchant_id, mode, webhook_id, event_id, event_type, outcome)
select 'att_' || substr(id, 5, 10) || substr(md5(id), 1, 20), id, 1, created_at, 3, 204, '', merchant_id, mode,
       webhook_id, event_id, event_type, 'succeeded' from d`;

const SIZES_SQL = `
select c.relname as table, pg_relation_size(c.oid) as heap, pg_indexes_size(c.oid) as indexes,
       coalesce(s.n_live_tup, 0) as live, coalesce(s.n_dead_tup, 0) as dead
from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
where c.relname in ('deliveries', 'delivery_attempts', 'events', 'audit_logs') order by c.relname`;

const mb = (bytes: string | number) => `${(Number(bytes) / 2 ** 20).toFixed(0)} MB`;

async function statementMeans(db: pg.Client): Promise<{ claim: string; record: string }> {
  const { rows } = await db.query<{ q: string; calls: number; mean: number }>(
    `select left(query, 4000) as q, calls::int, mean_exec_time as mean from pg_stat_statements s
       join pg_database d on d.oid = s.dbid where d.datname = current_database()`,
  );
  const of = (pattern: RegExp) => {
    const hits = rows.filter((r) => pattern.test(r.q));
    const calls = hits.reduce((n, r) => n + r.calls, 0);
    const mean = calls ? hits.reduce((n, r) => n + r.mean * r.calls, 0) / calls : NaN;
    return { calls, mean };
  };
  const claim = of(/with candidates as/);
  const record = of(/insert into delivery_attempts/i);
  await db.query('select pg_stat_statements_reset()');
  return {
    claim: `${claim.mean.toFixed(2)} ms (${claim.calls} calls)`,
    record: `${record.mean.toFixed(2)} ms (${record.calls} calls)`,
  };
}

async function throughput(b: Bench, url: string): Promise<{ rate: number; note: string }> {
  const m = await b.api.signup('Scale deliveries');
  const hook = await createWebhook(b.api, m, `${url}/scale-throughput`, 'order.created');
  const probe = () => succeeded(b.api, m, hook.id);
  const prefix = `sc${randomBytes(3).toString('hex')}_`;
  const sent = await b.load.call<{ started: number; ended: number; errors: number }>('burst', {
    ...eventsCall(b, m, 'order.created', prefix),
    count: EVENTS,
    concurrency: INGEST_CONCURRENCY,
  });
  const done = await waitFor(probe, EVENTS, 120_000, 100);
  const rate =
    done.at === undefined
      ? done.last / ((nowMs() - sent.started) / 1000)
      : EVENTS / ((done.at - sent.started) / 1000);
  const ingest = EVENTS / ((sent.ended - sent.started) / 1000);
  return {
    rate,
    note: `ingested at ${ingest.toFixed(0)}/s${done.at === undefined ? `; only ${done.last} in 120 s` : ''}`,
  };
}

export const historyCurve: Curve = {
  name: 'history',
  async run(b, sizes) {
    const chosen = sizes(SIZES);
    const rx = await receiver(b);
    const db = new pg.Client({ connectionString: b.cluster.url('svc') });
    await db.connect();
    const svc = await openDatabase({ databaseUrl: b.cluster.url('svc'), migrated: true, poolSize: 2 });
    const flow: Point[] = [];
    const claim: Point[] = [];
    const purge: Point[] = [];
    const footprint: string[] = [];
    try {
      const owner = await b.api.signup('Scale history');
      const old = await createWebhook(b.api, owner, `${rx.url}/history`, 'order.created');
      let have = 0;
      for (const size of chosen) {
        const t0 = performance.now();
        if (size > have)
          await db.query(HISTORY, [old.id, size - have, 29, 0.01, randomBytes(4).toString('hex')]);
        have = Math.max(have, size);
        const seeded = (performance.now() - t0) / 1000;
        await db.query('select pg_stat_statements_reset()');
        const t = await throughput(b, rx.url);
        const s = await statementMeans(db);
        flow.push({ size, value: t.rate, detail: `${t.note}; history seeded in ${seeded.toFixed(0)} s` });
        claim.push({
          size,
          value: Number.parseFloat(s.claim),
          detail: `claim ${s.claim}; outcomes ${s.record}`,
        });
        // One purge of EXPIRED expired deliveries (31-32 days old) with their attempts, as the service runs it.
        await db.query(HISTORY, [old.id, EXPIRED, 32, 31, randomBytes(4).toString('hex')]);
        const p0 = performance.now();
        let purged = 0;
        const before = new Date(Date.now() - 30 * 86_400_000);
        for (let n = await purgeExpired(svc.db, before); n > 0; n = await purgeExpired(svc.db, before))
          purged += n;
        const purgeMs = performance.now() - p0;
        purge.push({
          size,
          value: (purgeMs / purged) * 1000,
          detail: `${purged} rows in ${(purgeMs / 1000).toFixed(1)} s (${Math.round(purged / (purgeMs / 1000))}/s), batches of 1,000`,
        });
        const { rows } = await db.query<{
          table: string;
          heap: string;
          indexes: string;
          live: string;
          dead: string;
        }>(SIZES_SQL);
        footprint.push(
          `${size.toLocaleString('en-US')} history: ` +
            rows
              .map(
                (r) => `${r.table} ${mb(r.heap)} + indexes ${mb(r.indexes)} (${r.live} live, ${r.dead} dead)`,
              )
              .join('; '),
        );
        b.log(
          `scale history ${size}: ${t.rate.toFixed(0)} deliveries/s, claim ${s.claim}, purge ${purgeMs.toFixed(0)} ms`,
        );
      }
    } finally {
      await db.end();
      await svc.close();
    }
    const skipped = SIZES.filter((s) => !chosen.includes(s));
    const of = 'historical deliveries (and attempts)';
    const curves: CurveResult[] = [
      {
        name: 'delivery throughput',
        unit: 'deliveries/s',
        of,
        flat: true,
        lowerIsBetter: false,
        points: flow,
        skipped,
        note: `${EVENTS} events to one webhook, ${INGEST_CONCURRENCY} in flight; rate from the first ingestion to the last success`,
      },
      {
        name: 'claim statement, mean',
        unit: 'ms',
        of,
        flat: true,
        lowerIsBetter: true,
        points: claim,
        skipped,
        note: 'pg_stat_statements over the throughput run',
      },
      {
        name: 'retention purge per 1,000 rows',
        unit: 'ms',
        of,
        flat: true,
        lowerIsBetter: true,
        points: purge,
        skipped,
        note: `${EXPIRED.toLocaleString('en-US')} expired deliveries and their attempts, deleted by purgeExpired (the service's own), timed\n  sizes after the purge (steady state: the purge frees rows for reuse, the files do not shrink):\n  ${footprint.join('\n  ')}`,
      },
    ];
    return curves;
  },
};
