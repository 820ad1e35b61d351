// Reading the request log: pages newest first by (created_at, request_id), one range of
// request_logs_page_idx (or, for one app's calls, request_logs_app_idx) per day partition; the detail and the cursor by request id (request_logs_request_idx);
// `count` from the day counters when one answers the filter (request-entry.ts), by counting otherwise.
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { toPage, type Page, type PageInput, type Scope } from '../../lib/scope.ts';
import { counterKeyOf, type EntryFilter } from './request-entry.ts';
import type { RequestLogsTable } from './requests.table.ts';

export type EntryRow = Omit<Selectable<RequestLogsTable>, 'merchant_id' | 'for_owner' | 'body_fields'>;
/** An entry as its detail shows it: with its body's field names, which a list leaves out. */
export type DetailRow = EntryRow & Pick<Selectable<RequestLogsTable>, 'body_fields'>;

function filtered(db: Executor, scope: Scope, f: EntryFilter) {
  let q = db
    .selectFrom('request_logs')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode);
  // An app's owner reads its copies of the app's calls by the app only; written as the index's predicate.
  q = f.appId === undefined ? q.where(sql<boolean>`not for_owner`) : q.where('app_id', '=', f.appId);
  if (f.storeId !== undefined) q = q.where('store_id', '=', f.storeId);
  if (f.status !== undefined) {
    if (f.status.endsWith('xx')) {
      const floor = Number(f.status[0]) * 100;
      q = q.where('status', '>=', floor).where('status', '<', floor + 100);
    } else q = q.where('status', '=', Number(f.status));
  }
  if (f.errorCode !== undefined) q = q.where('error_code', '=', f.errorCode);
  if (f.method !== undefined) q = q.where('method', '=', f.method);
  if (f.path !== undefined) q = q.where(sql<boolean>`starts_with(path, ${f.path})`);
  if (f.credentialId !== undefined) q = q.where('credential_id', '=', f.credentialId);
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
  if (f.until !== undefined) q = q.where('created_at', '<', f.until);
  return q;
}

const COLUMNS = [
  'created_at',
  'mode',
  'request_id',
  'method',
  'path',
  'route',
  'status',
  'error_code',
  'duration_ms',
  'credential_type',
  'credential_id',
  'credential_last4',
  'ip',
  'user_agent',
  'idempotency_key',
  'idempotent_replayed',
  'error',
  'app_id',
  'store_id',
] as const;

/** The newest entry of a request id: the detail route, and where a cursor continues after. */
export async function findEntry(
  db: Executor,
  scope: Scope,
  requestId: string,
): Promise<DetailRow | undefined> {
  return db
    .selectFrom('request_logs')
    .select([...COLUMNS, 'body_fields'])
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('request_id', '=', requestId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

async function countOf(db: Executor, scope: Scope, f: EntryFilter): Promise<number> {
  const key = counterKeyOf(f);
  if (key === undefined) {
    const row = await filtered(db, scope, f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const row = await db
    .selectFrom('request_log_counts')
    .select(sql<number>`coalesce(sum(n), 0)`.as('n'))
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One page, newest first. `after` is the entry the page continues after (the cursor's entry), resolved by the
 * caller: entries older than it, or as old with a smaller request id.
 */
export async function listEntries(
  db: Executor,
  scope: Scope,
  f: EntryFilter,
  page: PageInput,
  after: EntryRow | undefined,
): Promise<Page<EntryRow & { id: string }>> {
  let q = filtered(db, scope, f);
  if (after) {
    q = q.where((eb) =>
      eb(eb.refTuple('created_at', 'request_id'), '<', eb.tuple(after.created_at, after.request_id)),
    );
  }
  const [rows, count] = await Promise.all([
    q
      .select(COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('request_id', 'desc')
      .limit(page.limit + 1)
      .execute(),
    countOf(db, scope, f),
  ]);
  return toPage(
    page,
    rows.map((r) => ({ ...r, id: r.request_id })),
    count,
  );
}
