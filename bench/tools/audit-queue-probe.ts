// `node bench/tools/audit-queue-probe.ts [WRITES] [ROUNDS]`: what the sealer's queue row costs the writers, in
// PostgreSQL's own CPU. The writers' statement (`auditCtes`, one entry per statement, as a code exchange
// writes it) runs WRITES times on one connection with its queue row and WRITES times without, in ROUNDS
// alternating rounds, on a table already holding 1,000,000 entries; the backend's CPU time comes from /proc.
// Each statement commits on its own.
import pg from 'pg';
import { startCluster } from '../../test/support/postgres.ts';
import { openDatabase } from '../../src/db/database.ts';
import { newId } from '../../src/lib/ids.ts';
import { auditCtes } from '../../src/modules/audit/index.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { seedAudit } from '../lib/audit-seed.ts';

const writes = Number(process.argv[2] ?? 2_000);
const rounds = Number(process.argv[3] ?? 20);
const MERCHANT = 'mer_probe';

const QUEUE = /\), audit_queued as \(\n {2}insert into audit_pending \(log_id\) select log_id from entries\n/;
const WITH_QUEUE = auditCtes('entries');
const WITHOUT_QUEUE = WITH_QUEUE.replace(QUEUE, '');
if (WITHOUT_QUEUE === WITH_QUEUE) throw new Error('the queue CTE was not found in auditCtes');

const statement = (ctes: string) => `
with entries as (
  select * from unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[])
    as e(log_id, log_at, merchant_id, mode, action, entity_type, entity_id, metadata)
), ${ctes}
select 1`;

const SHAPES = { 'with queue row': statement(WITH_QUEUE), without: statement(WITHOUT_QUEUE) };

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
  await seedAudit(db, MERCHANT, 1_000_000);
  const backend = (await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  // As the exchange's statements run on the oauth-token module's pool (src/modules/oauth-token/pool.ts): named,
  // planned with their values at each execution.
  await db.query(`set plan_cache_mode = force_custom_plan`);
  const write = (name: string, text: string) => {
    const at = new Date();
    return db.query({ name, text }, [
      [newId('log', at.getTime())],
      [at.toISOString()],
      [MERCHANT],
      ['test'],
      ['oauth.token_issued'],
      ['oauth_grant'],
      ['grt_probe'],
      ['{"actor":{"type":"app","id":"app_probe"},"ip":"127.0.0.1","request_id":"req_probe"}'],
    ]);
  };
  const results: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [shape, text] of Object.entries(SHAPES)) {
      const name = shape === 'without' ? 'without' : 'with';
      // the queue as the sealer leaves it between two polls: empty
      await db.query('truncate audit_pending');
      for (let i = 0; i < 500; i++) await write(name, text); // warm
      const before = processCpuMs(backend);
      for (let i = 0; i < writes; i++) await write(name, text);
      const us = ((processCpuMs(backend) - before) / writes) * 1000;
      (results[shape] ??= []).push(us);
      process.stdout.write(`round ${round + 1} ${shape}: ${us.toFixed(1)} us per statement\n`);
    }
  }
  for (const [shape, runs] of Object.entries(results)) {
    const sorted = [...runs].sort((a, b) => a - b);
    const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
    process.stdout.write(
      `${shape}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)}, mean ${mean.toFixed(1)}, ` +
        `min ${sorted[0]!.toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)} us per statement (${runs.length} rounds)\n`,
    );
  }
  await db.end();
} finally {
  cluster.stop();
}
