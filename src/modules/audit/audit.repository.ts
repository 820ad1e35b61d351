import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../../schema.ts';
import type { Executor } from '../../db/database.ts';
import type { AuditLogsTable } from './audit.table.ts';
import { idFloor } from '../../lib/ids.ts';
import { paginate, toPage, type Page, type PageInput, type Scope } from '../../lib/scope.ts';

const SHARDS = 16;

/** The columns `auditCtes` reads from its source relation, one row per entry. */
export const AUDIT_SOURCE_COLUMNS =
  'log_id text, log_at timestamptz, merchant_id text, mode text, action text, entity_type text, ' +
  'entity_id text, metadata text';

/**
 * SQL text of three data-modifying CTEs, `audit_logged`, `audit_queued` and `audit_counted`, that write one
 * entry per row of the relation `source` (columns: AUDIT_SOURCE_COLUMNS), marked `via_writer` (a row without
 * the mark was not queued by a writer: outside the chain, migration 0120), queue it for the sealer (migration
 * 0070) and bump its four counters: the only copy of the writers' protocol (migration 0005), for this
 * module's own statement and for a caller's statement that learns the merchant only as it runs (the refresh
 * grant). Every writer of a transaction uses the shard of
 * its transaction id and takes its counter rows in one order, '*' first, so two transactions either never
 * share a row or queue on '*' before anything else: no deadlock. Rows of one counter are summed first: one
 * statement may not update a row twice. Parameter-free, so it fits a named prepared statement as it is.
 */
export function auditCtes(source: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(source)) throw new Error(`auditCtes: ${source} is not a relation name`);
  return `audit_logged as (
  insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at, via_writer)
  select log_id, merchant_id, mode, action, entity_type, entity_id, metadata, log_at, true from ${source}
), audit_queued as (
  insert into audit_pending (log_id) select log_id from ${source}
), audit_counted as (
  insert into audit_counts (merchant_id, mode, key, shard, n)
  select s.merchant_id, s.mode, k.key, (txid_current() % ${SHARDS})::smallint, count(*)
    from ${source} s cross join lateral unnest(array['*', 'family:' || split_part(s.action, '.', 1),
         'action:' || s.action, 'entity_type:' || s.entity_type]) with ordinality as k(key, ord)
   group by k.ord, k.key, s.merchant_id, s.mode
   order by k.ord, s.merchant_id, s.mode, k.key
  on conflict (merchant_id, mode, key, shard) do update set n = audit_counts.n + excluded.n
)`;
}

const WRITE_CTES = auditCtes('entries');

export interface EntryInsert {
  id: string;
  createdAt: Date;
  merchantId: string;
  mode: string;
  action: string;
  entityType: string;
  entityId: string;
  metadata: string;
}

/** The entries and their counters in one statement, whether one entry or many. */
export async function insertEntries(db: Executor, rows: readonly EntryInsert[]): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof EntryInsert>(k: K) => rows.map((r) => r[k]);
  await sql`
    with entries as (
      select * from unnest(${col('id')}::text[], ${rows.map((r) => r.createdAt.toISOString())}::timestamptz[],
                           ${col('merchantId')}::text[], ${col('mode')}::text[], ${col('action')}::text[],
                           ${col('entityType')}::text[], ${col('entityId')}::text[], ${col('metadata')}::text[])
        as e(log_id, log_at, merchant_id, mode, action, entity_type, entity_id, metadata)
    ), ${sql.raw(WRITE_CTES)}
    select 1`.execute(db);
}

/** The counter key answering `count` for this filter, when one does: a single filter, or none. */
function counterKey(f: EntryFilter): string | undefined {
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

/** The sum of a counter's shards, as a scalar subquery. */
const counterSum = (scope: Scope, key: string) =>
  sql<string | number>`(select coalesce(sum(n), 0) from audit_counts
    where merchant_id = ${scope.merchantId} and mode = ${scope.mode} and key = ${key})`;

/** What narrows a listing or an export, besides the scope. */
export interface EntryFilter {
  /** Exact action, or a family as `webhook.*`. */
  action?: string | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

export interface EntryRow extends Pick<
  Selectable<AuditLogsTable>,
  'id' | 'action' | 'entity_type' | 'entity_id' | 'metadata' | 'created_at'
> {
  sequence: number | null;
  hash: string | null;
  prev_hash: string | null;
}

/**
 * The entries a filter matches, before paging. The merchant is bounded by a range, not `=`, and pages are
 * ordered by (merchant_id, id): an equality makes the planner drop merchant_id from the sort, and then the
 * primary key (id alone) also gives the order. With a merchant that holds most of the table it took that
 * path, scanning ids backwards and filtering out every newer entry of other merchants: 26-43 ms and 2,530
 * buffers for a first page behind 50,000 newer entries of another merchant, against 0.1 ms and 6 buffers
 * through audit_logs_page_idx. With the range, only the (merchant_id, mode, ..., id desc) indexes give the
 * order, whatever the statistics say.
 */
function filtered(db: Executor, scope: Scope, f: EntryFilter) {
  return narrowed(
    db
      .selectFrom('audit_logs')
      .where('audit_logs.merchant_id', '>=', scope.merchantId)
      .where('audit_logs.merchant_id', '<=', scope.merchantId)
      .where('audit_logs.mode', '=', scope.mode),
    f,
  );
}

/** A filter's conditions on audit_logs. */
export function narrowed(q: SelectQueryBuilder<DB, 'audit_logs', object>, f: EntryFilter) {
  if (f.action?.endsWith('.*')) q = q.where('audit_logs.family', '=', f.action.slice(0, -2));
  else if (f.action) q = q.where('audit_logs.action', '=', f.action);
  if (f.entityType) q = q.where('audit_logs.entity_type', '=', f.entityType);
  if (f.entityId) q = q.where('audit_logs.entity_id', '=', f.entityId);
  // Ids begin with their creation time, so a time bound is also an id bound: the index range scan stops at
  // the bound instead of filtering rows one by one.
  if (f.since) {
    q = q.where('audit_logs.created_at', '>=', f.since).where('audit_logs.id', '>=', idFloor('log', f.since));
  }
  if (f.until) {
    q = q
      .where('audit_logs.created_at', '<', f.until)
      .where('audit_logs.id', '<', idFloor('log', new Date(f.until.getTime() + 1)));
  }
  return q;
}

/**
 * Each entry's seal, for a query on audit_logs: one probe of audit_chain_log_idx per entry, as a lateral
 * subquery that the planner cannot fold into a join (its `limit`). Planned as a join, the page's statement
 * cost PostgreSQL 0.32-0.33 ms of CPU, against 0.14 without the seal; as this subquery, 0.25
 * (bench/tools/audit-page-probe.ts, 1,000,000 entries): the join's planning weighed its ways of joining
 * audit_chain (0.18 ms of planning, against 0.07 without the seal and 0.11 with this subquery). A covering
 * index (`include (sequence, hash, prev_hash)`) saved nothing: four times the size, one level deeper, as
 * many buffers per probe as the heap visit it spared.
 */
export function withSeal<O>(q: SelectQueryBuilder<DB, 'audit_logs', O>) {
  return q.leftJoinLateral(
    (eb) =>
      eb
        .selectFrom('audit_chain')
        .select(['audit_chain.sequence', 'audit_chain.hash', 'audit_chain.prev_hash'])
        .whereRef('audit_chain.log_id', '=', 'audit_logs.id')
        .limit(sql.lit(1))
        .as('c'),
    (join) => join.onTrue(),
  );
}

/**
 * The columns of an entry, its seal's among them (null until sealed): for a query on audit_logs `withSeal`.
 */
export const ENTRY_COLUMNS = [
  'audit_logs.id',
  'audit_logs.action',
  'audit_logs.entity_type',
  'audit_logs.entity_id',
  'audit_logs.metadata',
  'audit_logs.created_at',
  'c.sequence',
  'c.hash',
  'c.prev_hash',
] as const;

export async function listEntries(
  db: Executor,
  scope: Scope,
  f: EntryFilter,
  page: PageInput,
): Promise<Page<EntryRow>> {
  const q = filtered(db, scope, f);
  const rows = (after: string | undefined, take: number) =>
    withSeal(after ? q.where('audit_logs.id', '<', after) : q)
      .select(ENTRY_COLUMNS)
      .orderBy('audit_logs.merchant_id')
      .orderBy('audit_logs.id', 'desc')
      .limit(take);
  const key = counterKey(f);
  if (key === undefined) {
    return paginate(page, {
      rows: (after, take) => rows(after, take).execute(),
      count: async () =>
        Number(
          (await q.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count,
        ),
    });
  }
  // One round trip when a counter answers: its sum comes with every row (PostgreSQL computes the uncorrelated
  // subquery once). A page past the last entry has no row to carry it, and asks for it alone.
  const read = await rows(page.startingAfter, page.limit + 1)
    .select(counterSum(scope, key).as('total'))
    .execute();
  const count = read[0]
    ? read[0].total
    : (await db.selectNoFrom(counterSum(scope, key).as('n')).executeTakeFirstOrThrow()).n;
  return toPage(
    page,
    read.map(({ total: _, ...row }) => row),
    Number(count),
  );
}

/**
 * The entries written during a request (the request log's detail, API.md section 11.6): its id in their
 * metadata, among the merchant's entries of the request's few seconds (ids begin with their time, so the
 * window is one range of audit_logs_page_idx).
 */
export async function entriesOfRequest(
  db: Executor,
  scope: Scope,
  requestId: string,
  window: { from: Date; to: Date },
): Promise<EntryRow[]> {
  return withSeal(db.selectFrom('audit_logs'))
    .select(ENTRY_COLUMNS)
    .where('audit_logs.merchant_id', '=', scope.merchantId)
    .where('audit_logs.mode', '=', scope.mode)
    .where('audit_logs.id', '>=', idFloor('log', window.from))
    .where('audit_logs.id', '<', idFloor('log', window.to))
    .where(sql<string>`audit_logs.metadata::jsonb ->> 'request_id'`, '=', requestId)
    .orderBy('audit_logs.id', 'desc')
    .limit(100)
    .execute();
}
