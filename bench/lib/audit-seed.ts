// A merchant's audit log seeded in bulk, for the audit measure, its `--scale` curve and the audit probes: entries
// with the service's own ids (src/lib/ids.ts, so they sort by time and page like the service's), one every
// 500 ms up to a minute ago, and the counters the service's writers keep for them. Also the SQL form of the
// ids' time part, for seeds that make other kinds of rows in SQL.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { newId } from '../../src/lib/ids.ts';
import { sleep } from './stats.ts';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** src/lib/ids.ts in SQL: 10 Crockford base32 characters of the millisecond time in `ms`. */
export const TIME_CHARS = Array.from(
  { length: 10 },
  (_, i) => `substr('${ALPHABET}', ((ms >> ${5 * (9 - i)}) & 31)::int + 1, 1)`,
).join(' || ');

const ACTIONS: readonly [string, string][] = [
  ['api_key.created', 'api_key'],
  ['webhook.created', 'webhook'],
  ['developer_app.updated', 'developer_app'],
  ['oauth.token_refreshed', 'oauth_grant'],
  ['webhook.delivery_retried', 'webhook_delivery'],
  ['oauth.token_issued', 'oauth_grant'],
  ['api_key.rotated', 'api_key'],
  ['webhook.updated', 'webhook'],
];

export interface SeedEntry {
  id: string;
  merchant_id: string;
  mode: 'test';
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: Date;
}

/** Entry g of `entries` (1-based) of a seed ending a minute before `now`: 3 of every 8 are `webhook.*`. */
export function* seedEntries(merchantId: string, entries: number, now = Date.now()): Generator<SeedEntry> {
  const entity = randomBytes(4).toString('hex');
  for (let g = 1; g <= entries; g++) {
    const ms = now - 60_000 - (entries - g) * 500;
    const [action, entityType] = ACTIONS[g % ACTIONS.length]!;
    yield {
      id: newId('log', ms),
      merchant_id: merchantId,
      mode: 'test',
      action,
      entity_type: entityType,
      entity_id: `ent_${entity}${g.toString(16).padStart(18, '0')}`,
      metadata: `{"actor":{"type":"user","id":"usr_bench"},"ip":"127.0.0.1","user_agent":"bench/1.0","request_id":"req_${g}","name":"bench"}`,
      created_at: new Date(ms),
    };
  }
}

const COLUMNS = ['id', 'merchant_id', 'mode', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'];

/** COPY text of the entries, 5,000 lines a chunk; `extra` is appended to every line (more columns). */
function* copyText(rows: Iterable<SeedEntry>, extra: string): Generator<string> {
  let chunk: string[] = [];
  for (const e of rows) {
    chunk.push(
      `${e.id}\t${e.merchant_id}\t${e.mode}\t${e.action}\t${e.entity_type}\t${e.entity_id}\t${e.metadata}\t${e.created_at.toISOString()}${extra}`,
    );
    if (chunk.length === 5000) {
      yield chunk.join('\n') + '\n';
      chunk = [];
    }
  }
  if (chunk.length) yield chunk.join('\n') + '\n';
}

export const COUNTERS = `
insert into audit_counts (merchant_id, mode, key, shard, n)
select $1, 'test', key, 0, count(*)
from audit_logs,
     lateral unnest(array['*', 'family:' || family, 'action:' || action, 'entity_type:' || entity_type]) as key
where merchant_id = $1 and mode = 'test'
group by key
on conflict (merchant_id, mode, key, shard) do update set n = audit_counts.n + excluded.n`;

/**
 * `entries` entries for one merchant, by COPY, with the table's secondary indexes dropped and rebuilt around
 * it (a sorted bulk build each) and the foreign-key check off for the session (every row names the one
 * merchant, which exists). A million entries inserted one by one into five secondary indexes took 90-200 s
 * on this host; an INSERT ... SELECT computing the ids in SQL spent more than half of its time on them, and
 * a quarter on the foreign key. Entries the service's writers make are marked `via_writer` (where the
 * column exists), and the seed stands for theirs. Answers the time of each step.
 */
export async function seedAudit(db: pg.Client, merchantId: string, entries: number): Promise<string> {
  const steps: string[] = [];
  let t0 = performance.now();
  const step = (name: string) => {
    steps.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
  };
  const indexes = await db.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
      where tablename = 'audit_logs' and indexname not in
        (select conname from pg_constraint where conrelid = 'audit_logs'::regclass)`,
  );
  const writer = await db.query(
    `select 1 from information_schema.columns where table_name = 'audit_logs' and column_name = 'via_writer'`,
  );
  const columns = [...COLUMNS, ...(writer.rowCount ? ['via_writer'] : [])];
  for (const index of indexes.rows) await db.query(`drop index ${index.name}`);
  await db.query(`set session_replication_role = replica`);
  try {
    await pipeline(
      Readable.from(copyText(seedEntries(merchantId, entries), writer.rowCount ? '\tt' : '')),
      db.query(copyFrom(`copy audit_logs (${columns.join(', ')}) from stdin`)),
    );
  } finally {
    await db.query(`reset session_replication_role`);
  }
  step('copy');
  await db.query(`set maintenance_work_mem = '256MB'`);
  for (const index of indexes.rows) await db.query(index.def);
  step(`${indexes.rows.length} indexes`);
  // The service keeps page counts in counters (0005_audit_counts.sql) that its writes maintain: fill them
  // for the seeded entries as those writes would have.
  const counters = await db.query<{ t: string | null }>(`select to_regclass('audit_counts')::text as t`);
  if (counters.rows[0]?.t) await db.query(COUNTERS, [merchantId]);
  step('counters');
  await db.query('analyze audit_logs');
  step('analyze');
  return steps.join(', ');
}

/**
 * Queues `count` of the merchant's seeded entries, from the `offset`th oldest, for the service's sealer, as its
 * writers queue theirs, and waits until the sealer has chained them all (an upgrade seals the entries of
 * before the chain the same way): the seconds it took, or undefined where the service has no chain.
 */
export async function sealSeeded(
  db: pg.Client,
  merchantId: string,
  count: number,
  offset = 0,
): Promise<number | undefined> {
  const queue = await db.query<{ t: string | null }>(`select to_regclass('audit_pending')::text as t`);
  if (!queue.rows[0]?.t) return undefined;
  const t0 = performance.now();
  await db.query(
    `insert into audit_pending (log_id)
     select id from audit_logs where merchant_id = $1 order by id offset $2 limit $3 on conflict do nothing`,
    [merchantId, offset, count],
  );
  // `exists`, not a count: counting a queue of up to a million rows every half second is PostgreSQL work
  // that this row would charge to the sealer.
  for (;;) {
    const left = await db.query<{ any: boolean }>('select exists (select 1 from audit_pending) as any');
    if (!left.rows[0]!.any) break;
    await sleep(200);
  }
  const seconds = (performance.now() - t0) / 1000;
  // What autovacuum does in production a while after the burst: the queue's dead rows, and fresh statistics.
  await db.query('vacuum analyze audit_pending, audit_chain');
  return seconds;
}
