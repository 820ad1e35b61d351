// `node bench/tools/audit-probe.ts [ENTRIES] [NEWER] [SECONDS] [equality]`: why the first audit page after a
// bulk seed was slow. Seeds ENTRIES like the audit measure and NEWER entries of another merchant after them
// (what the token measure leaves), then once a second samples the page query under EXPLAIN (ANALYZE,
// BUFFERS), the HTTP page's latency, and what autovacuum is doing to the table.
import pg from 'pg';
import { startCluster } from '../../test/support/postgres.ts';
import { Api } from '../lib/api.ts';
import { startService } from '../lib/service.ts';
import { nowMs, sleep } from '../lib/stats.ts';
import { seedAudit, TIME_CHARS } from '../lib/audit-seed.ts';

const entries = Number(process.argv[2] ?? 1_000_000);
const cluster = await startCluster({ settings: { max_wal_size: "'8GB'", checkpoint_timeout: "'30min'" } });
const admin = new pg.Client({ connectionString: cluster.url('postgres') });
await admin.connect();
await admin.query('create database svc');
await admin.end();
const service = await startService(cluster.url('svc'));
try {
  const api = new Api(service.url);
  const m = await api.signup('Probe');
  const db = new pg.Client({ connectionString: cluster.url('svc') });
  await db.connect();
  const t0 = performance.now();
  await seedAudit(db, m.merchantId, entries);
  // What the measures before the audit one leave behind: other merchants' entries, newer than the seeded
  // ones (the token measure writes one per refresh).
  const other = await api.signup('Probe neighbour');
  await db.query(
    `insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata)
     select 'log_' || ${TIME_CHARS} || lpad(g::text, 16, '0'), $1, 'test',
            'oauth.token_refreshed', 'oauth_grant', 'grant_x', '{}'
       from generate_series(1, $2::int) g,
            lateral (select (extract(epoch from now()) * 1000)::bigint - 50000 + g / 100 as ms) t`,
    [other.merchantId, Number(process.argv[3] ?? 0)],
  );
  process.stdout.write(`seeded ${entries} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  // The page as audit.repository.ts writes it, or (`equality`) as it was written before.
  const page =
    process.argv[5] === 'equality'
      ? `select id, action, entity_type, entity_id, metadata, created_at from audit_logs
          where merchant_id = $1 and mode = 'test' order by id desc limit 51`
      : `select id, action, entity_type, entity_id, metadata, created_at from audit_logs
          where merchant_id >= $1 and merchant_id <= $1 and mode = 'test' order by merchant_id, id desc limit 51`;
  for (let s = 0; s < Number(process.argv[4] ?? 90); s++) {
    const a = nowMs();
    const res = await fetch(`${service.url}/api/v1/merchant/developer/logs?limit=50`, {
      headers: { authorization: `Bearer ${m.token}` },
    });
    await res.text();
    const http = nowMs() - a;
    const plan = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${page}`, [
      m.merchantId,
    ]);
    const lines = plan.rows.map((r) => r['QUERY PLAN']);
    const vac = await db.query<{ q: string; phase: string | null; scanned: string | null }>(
      `select a.query as q, p.phase, p.heap_blks_scanned || '/' || p.heap_blks_total as scanned
         from pg_stat_activity a left join pg_stat_progress_vacuum p on p.pid = a.pid
        where a.backend_type = 'autovacuum worker'`,
    );
    const stats = await db.query<{ av: string; aa: string; dead: string }>(
      `select autovacuum_count::text as av, autoanalyze_count::text as aa, n_dead_tup::text as dead
         from pg_stat_user_tables where relname = 'audit_logs'`,
    );
    process.stdout.write(
      `${s}s http ${http.toFixed(1)} ms | ${lines.find((l) => l.startsWith('Execution'))} | ` +
        `${lines.find((l) => l.includes('Buffers'))?.trim()} | ${lines
          .filter((l) => /Scan|Limit|Filter|Rows Removed/.test(l))
          .map((l) => l.trim().slice(0, 90))
          .join(' / ')} | ` +
        `autovacuum: ${vac.rows.map((v) => `${v.q.slice(0, 50)} ${v.phase ?? ''} ${v.scanned ?? ''}`).join('; ') || '-'} ` +
        `(vacuums ${stats.rows[0]?.av}, analyzes ${stats.rows[0]?.aa})\n`,
    );
    await sleep(1000);
  }
  await db.end();
} finally {
  await service.stop();
  cluster.stop();
}
