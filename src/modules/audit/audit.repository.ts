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

/**
 * The entries a filter matches, before paging. The merchant is bounded by a range, not `=`, and pages are
 * ordered by (merchant_id, id): an equality makes the planner drop merchant_id from the sort, and then the
 * primary key (id alone) also gives the order. With a merchant that holds most of the table it took that
 * path, scanning ids backwards and filtering out every newer entry of other merchants: 26-43 ms and 2,530
 * buffers for a first page behind 50,000 newer entries of another merchant, against 0.1 ms and 6 buffers
 * through audit_logs_page_idx. With the range, only the (merchant_id, mode, ..., id desc) indexes give the
 * order, whatever the statistics say.
 */
function filtered(db: Executor, f: Omit<ListFilter, 'limit' | 'startingAfter'>) {
  let q = db
    .selectFrom('audit_logs')
    .where('merchant_id', '>=', f.merchantId)
    .where('merchant_id', '<=', f.merchantId)
    .where('mode', '=', f.mode);
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
      .orderBy('merchant_id')
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
      .orderBy('merchant_id')
      .orderBy('id', 'desc')
      .limit(Math.min(chunk, max - sent))
      .execute();
    for (const row of rows) yield row;
    sent += rows.length;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1]!.id;
  }
}
