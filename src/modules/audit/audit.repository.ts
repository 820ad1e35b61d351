import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { AuditLogsTable } from './audit.table.ts';
import { idFloor } from '../../lib/ids.ts';
import type { Mode } from '../../lib/credentials.ts';

const SHARDS = 16;

/**
 * The entry and its four counters in one statement. Every writer of a transaction uses the shard of its
 * transaction id and locks the '*' counter first, so two transactions either never share a row or queue on
 * '*' before anything else: no deadlock.
 */
export async function insertEntry(
  db: Executor,
  row: Insertable<AuditLogsTable> & { family: string },
): Promise<void> {
  const { family, ...entry } = row;
  const keys = ['*', `family:${family}`, `action:${row.action}`, `entity_type:${row.entity_type}`];
  await sql`
    with entry as (
      insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
      values (${entry.id}, ${entry.merchant_id}, ${entry.mode}, ${entry.action}, ${entry.entity_type},
              ${entry.entity_id}, ${entry.metadata}, ${entry.created_at})
    )
    insert into audit_counts (merchant_id, mode, key, shard, n)
    select ${entry.merchant_id}, ${entry.mode}, k.key, (txid_current() % ${SHARDS})::smallint, 1
    from unnest(${keys}::text[]) with ordinality as k(key, ord)
    order by k.ord
    on conflict (merchant_id, mode, key, shard) do update set n = audit_counts.n + 1`.execute(db);
}

/**
 * `insertEntry` for a caller's statement that makes its entries as it goes (the refresh rotation: the change
 * and its entries in one round trip): two CTEs to put after the caller's own. `source` names a CTE of the
 * caller with one row per entry and the columns id, merchant_id, mode, action, entity_type, entity_id,
 * metadata (from `prepareEntry`) and created_at. The counters follow insertEntry's protocol: the shard of the
 * transaction, every '*' counter first, then the others, in one order.
 */
export function entryCtes(source: string): string {
  if (!/^[a-z_]+$/.test(source)) throw new Error(`entryCtes: ${source} is not a CTE name`);
  return `audit_entries as (
  insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
  select id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at from ${source}
), audit_counted as (
  insert into audit_counts (merchant_id, mode, key, shard, n)
  select e.merchant_id, e.mode, k.key, (txid_current() % ${SHARDS})::smallint, count(*)
    from ${source} e
   cross join lateral unnest(array['*', 'family:' || split_part(e.action, '.', 1), 'action:' || e.action,
                                   'entity_type:' || e.entity_type]) with ordinality as k(key, ord)
   group by k.ord, k.key, e.merchant_id, e.mode
   order by k.ord, e.merchant_id, e.mode, k.key
  on conflict (merchant_id, mode, key, shard) do update set n = audit_counts.n + excluded.n
)`;
}

/** The counter key answering `count` for this filter, when one does: a single filter, or none. */
function counterKey(f: ListFilter): string | undefined {
  if (f.entityId || f.since || f.until) return undefined;
  const filters = [
    f.action?.endsWith('.*')
      ? `family:${f.action.slice(0, -2)}`
      : f.action
        ? `action:${f.action}`
        : undefined,
    f.entityType ? `entity_type:${f.entityType}` : undefined,
  ].filter((k) => k !== undefined);
  if (filters.length > 1) return undefined;
  return filters[0] ?? '*';
}

async function countByCounter(db: Executor, f: ListFilter, key: string): Promise<number> {
  const row = await db
    .selectFrom('audit_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .where('merchant_id', '=', f.merchantId)
    .where('mode', '=', f.mode)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface ListFilter {
  merchantId: string;
  mode: Mode;
  limit: number;
  startingAfter?: string | undefined;
  /** Exact action, or a family as `webhook.*`. */
  action?: string | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

export type EntryRow = Pick<
  Selectable<AuditLogsTable>,
  'id' | 'action' | 'entity_type' | 'entity_id' | 'metadata' | 'created_at'
>;

/** The entries a filter matches, before paging. */
function filtered(db: Executor, f: Omit<ListFilter, 'limit' | 'startingAfter'>) {
  let q = db.selectFrom('audit_logs').where('merchant_id', '=', f.merchantId).where('mode', '=', f.mode);
  if (f.action?.endsWith('.*')) q = q.where('family', '=', f.action.slice(0, -2));
  else if (f.action) q = q.where('action', '=', f.action);
  if (f.entityType) q = q.where('entity_type', '=', f.entityType);
  if (f.entityId) q = q.where('entity_id', '=', f.entityId);
  // Ids begin with their creation time, so a time bound is also an id bound: the index range scan stops at
  // the bound instead of filtering rows one by one.
  if (f.since) q = q.where('created_at', '>=', f.since).where('id', '>=', idFloor('log', f.since));
  if (f.until)
    q = q.where('created_at', '<', f.until).where('id', '<', idFloor('log', new Date(f.until.getTime() + 1)));
  return q;
}

export async function listEntries(db: Executor, f: ListFilter): Promise<{ rows: EntryRow[]; count: number }> {
  const q = filtered(db, f);
  const page = f.startingAfter ? q.where('id', '<', f.startingAfter) : q;
  const key = counterKey(f);
  const [rows, total] = await Promise.all([
    page
      .select(['id', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'])
      .orderBy('id', 'desc')
      .limit(f.limit + 1)
      .execute(),
    key === undefined
      ? q
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.count))
      : countByCounter(db, f, key),
  ]);
  return { rows, count: total };
}

/**
 * Every entry a filter matches, newest first, read `chunk` at a time by keyset: an export of any size holds
 * one chunk in memory, and each chunk is one index range scan.
 */
export async function* eachEntry(
  db: Executor,
  f: Omit<ListFilter, 'limit' | 'startingAfter'>,
  chunk: number,
  max: number,
): AsyncGenerator<EntryRow> {
  let after: string | undefined;
  let sent = 0;
  while (sent < max) {
    const q = filtered(db, f);
    const rows = await (after ? q.where('id', '<', after) : q)
      .select(['id', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'])
      .orderBy('id', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    for (const row of rows) yield row;
    sent += rows.length;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1]!.id;
  }
}
