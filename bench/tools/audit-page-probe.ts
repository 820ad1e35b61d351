// `node bench/tools/audit-page-probe.ts [ENTRIES] [PAGES] [ROUNDS] [SHAPE,...]`: PostgreSQL's own CPU for the audit page's
// statement, for each shape of the seal's index, without the service, HTTP or a load generator in the way.
// Seeds ENTRIES entries of one merchant like the audit measure, seals them all (sequence, and hashes of the
// right length: the statement's cost does not depend on their values), then in ROUNDS rounds, the shapes
// alternating, runs the page's statement PAGES times on one connection and reads that backend's CPU time from
// /proc: milliseconds per page, and the buffers one page touches (EXPLAIN ANALYZE, BUFFERS).
import pg from 'pg';
import { startCluster } from '../../test/support/postgres.ts';
import { openDatabase } from '../../src/db/database.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { seedAudit } from '../lib/audit-seed.ts';

const entries = Number(process.argv[2] ?? 1_000_000);
const pages = Number(process.argv[3] ?? 2_000);
const rounds = Number(process.argv[4] ?? 10);
/** The shapes to compare, by name (a comma list); all of them otherwise. */
const only = process.argv[5]?.split(',');
const MERCHANT = 'mer_probe';

const PLAIN = 'create unique index audit_chain_log_idx on audit_chain (log_id)';
const COVERING =
  'create unique index audit_chain_log_idx on audit_chain (log_id) include (sequence, hash, prev_hash)';
const COUNT = `(select coalesce(sum(n), 0) from audit_counts
  where merchant_id = $1 and mode = 'test' and key = '*') as total`;
const ENTRY = 'a.id, a.action, a.entity_type, a.entity_id, a.metadata, a.created_at';
const SEAL = 'c.sequence, c.hash, c.prev_hash';
const RANGE = `a.merchant_id >= $1 and a.merchant_id <= $1 and a.mode = 'test'`;

/**
 * The first page as `listEntries` sends it (src/modules/audit/audit.repository.ts), and the alternatives:
 * each with the seal's index it reads.
 */
const SHAPES: Record<string, { index: string; page: string }> = {
  // the page of before the chain: no seal, a reference
  unsealed: {
    index: PLAIN,
    page: `select ${ENTRY}, ${COUNT} from audit_logs a where ${RANGE}
            order by a.merchant_id, a.id desc limit 51`,
  },
  plain: {
    index: PLAIN,
    page: `select ${ENTRY}, ${SEAL}, ${COUNT} from audit_logs a left join audit_chain c on c.log_id = a.id
            where ${RANGE} order by a.merchant_id, a.id desc limit 51`,
  },
  covering: {
    index: COVERING,
    page: `select ${ENTRY}, ${SEAL}, ${COUNT} from audit_logs a left join audit_chain c on c.log_id = a.id
            where ${RANGE} order by a.merchant_id, a.id desc limit 51`,
  },
  // the seal as a lateral subquery that the planner cannot pull up into a join (its limit)
  lateral: {
    index: PLAIN,
    page: `select ${ENTRY}, ${SEAL}, ${COUNT} from audit_logs a
             left join lateral (select sequence, hash, prev_hash from audit_chain
                                 where log_id = a.id limit 1) c on true
            where ${RANGE} order by a.merchant_id, a.id desc limit 51`,
  },
  // the seal as one scalar subquery (one probe per row, no join to plan), its three columns in an array
  'scalar array': {
    index: PLAIN,
    page: `select ${ENTRY},
             (select array[c.sequence::text, c.hash, c.prev_hash] from audit_chain c where c.log_id = a.id) as seal,
             ${COUNT}
             from audit_logs a where ${RANGE} order by a.merchant_id, a.id desc limit 51`,
  },
  // the page's rows first, then their seals
  'page first': {
    index: PLAIN,
    page: `select ${ENTRY}, ${SEAL}, a.total from (
             select a.*, ${COUNT} from audit_logs a where ${RANGE} order by a.merchant_id, a.id desc limit 51
           ) a left join audit_chain c on c.log_id = a.id order by a.merchant_id, a.id desc`,
  },
};

const cluster = await startCluster({ settings: { max_wal_size: "'8GB'", checkpoint_timeout: "'30min'" } });
try {
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query('create database svc');
  await admin.end();
  await (await openDatabase({ databaseUrl: cluster.url('svc') })).close(); // migrates
  const db = new pg.Client({ connectionString: cluster.url('svc') });
  await db.connect();
  await db.query(`insert into merchants (id, name) values ($1, 'Probe')`, [MERCHANT]);
  await seedAudit(db, MERCHANT, entries);
  await db.query(
    `insert into audit_chain (merchant_id, mode, sequence, log_id, hash, prev_hash)
     select merchant_id, mode, row_number() over (order by id), id, md5(id) || md5(id || 'h'),
            md5(id || 'p') || md5(id || 'q')
       from audit_logs where merchant_id = $1`,
    [MERCHANT],
  );
  await db.query('vacuum analyze audit_chain');
  const backend = (await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const results: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [shape, { index, page }] of Object.entries(SHAPES)) {
      if (only && !only.includes(shape)) continue;
      await db.query('drop index if exists audit_chain_log_idx');
      await db.query(index);
      await db.query('vacuum analyze audit_chain');
      for (let i = 0; i < 200; i++) await db.query(page, [MERCHANT]); // warm
      const before = processCpuMs(backend);
      for (let i = 0; i < pages; i++) await db.query(page, [MERCHANT]);
      const perPage = (processCpuMs(backend) - before) / pages;
      (results[shape] ??= []).push(perPage);
      if (round === 0) {
        const plan = await db.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers, costs off) ${page}`,
          [MERCHANT],
        );
        const size = await db.query<{ size: string }>(
          `select pg_size_pretty(pg_relation_size('audit_chain_log_idx')) as size`,
        );
        process.stdout.write(
          `${shape} (index ${size.rows[0]!.size}):\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`,
        );
      }
      process.stdout.write(`round ${round + 1} ${shape}: ${perPage.toFixed(3)} ms per page\n`);
    }
  }
  for (const [shape, runs] of Object.entries(results)) {
    const sorted = [...runs].sort((a, b) => a - b);
    const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
    process.stdout.write(
      `${shape}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)}, mean ${mean.toFixed(3)}, ` +
        `min ${sorted[0]!.toFixed(3)}, max ${sorted.at(-1)!.toFixed(3)} ms per page (${runs.length} rounds)\n`,
    );
  }
  await db.end();
} finally {
  cluster.stop();
}
