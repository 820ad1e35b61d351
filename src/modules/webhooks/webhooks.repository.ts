// SQL of webhook subscriptions. Every query is scoped by merchant and mode; deleted webhooks are invisible.
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { Page, PageInput, Scope } from '../../lib/scope.ts';
import { recentDeliveries, recentlyFiltered, type RecentDeliveries } from './health.repository.ts';
import type { DB } from '../../schema.ts';
import type { WebhooksTable } from './webhooks.table.ts';

export type WebhookRow = Selectable<WebhooksTable>;
/** What the API shows of a webhook (never its secrets), read with the counts of its recent deliveries. */
const SHOWN = [
  'id',
  'url',
  'events',
  'description',
  'app_id',
  'status',
  'kind',
  'mode',
  'disabled_reason',
  'failing_since',
  'last_attempt_at',
  'last_response_status',
  'last_error',
  'ordering',
  'filter',
  'created_at',
  'updated_at',
] as const;
export type ShownWebhook = Pick<WebhookRow, (typeof SHOWN)[number]>;
/** Its pace (webhook_paces, the delivery module's, migration 0060): null where the endpoint has none. */
export interface WebhookPaceView {
  rate_limit: number | null;
  pace: number | null;
  pace_reason: Selectable<DB['webhook_paces']>['pace_reason'];
}
export type WebhookView = ShownWebhook & RecentDeliveries & WebhookPaceView;

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The tenant's live webhooks (only one app's, with `appId`); deleted ones are invisible. */
function liveWebhooks(db: Executor, scope: Scope, appId?: string) {
  const q = db
    .selectFrom('webhooks')
    .where('webhooks.merchant_id', '=', scope.merchantId)
    .where('webhooks.mode', '=', scope.mode)
    .where('webhooks.deleted_at', 'is', null);
  return appId === undefined ? q : q.where('webhooks.app_id', '=', appId);
}

/** The same, each with its real deliveries since `since` and its pace. */
function viewed(db: Executor, scope: Scope, since: Date, appId?: string) {
  return liveWebhooks(db, scope, appId)
    .crossJoinLateral(recentDeliveries(since))
    .crossJoinLateral(recentlyFiltered(since))
    .leftJoin('webhook_paces as p', 'p.webhook_id', 'webhooks.id')
    .select(SHOWN.map((column) => `webhooks.${column}` as const))
    .select(['recent.deliveries', 'recent.attempted', 'recent.succeeded', 'refused.filtered'])
    .select(['p.rate_limit', 'p.pace', 'p.pace_reason']);
}

/** A live webhook of the tenant, by id. */
function ownWebhook(db: Executor, scope: Scope, id: string) {
  return liveWebhooks(db, scope).selectAll().where('id', '=', id);
}

export async function findWebhook(db: Executor, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  return ownWebhook(db, scope, id).executeTakeFirst();
}

export async function viewWebhook(
  db: Executor,
  scope: Scope,
  id: string,
  since: Date,
): Promise<WebhookView | undefined> {
  return viewed(db, scope, since).where('webhooks.id', '=', id).executeTakeFirst();
}

/** Locks the row for the rest of the transaction, so concurrent changes of one webhook serialise. */
export async function lockWebhook(db: Executor, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  return ownWebhook(db, scope, id).forUpdate().executeTakeFirst();
}

export async function updateWebhook(
  db: Executor,
  scope: Scope,
  id: string,
  changes: Updateable<WebhooksTable>,
  now: Date,
): Promise<WebhookRow> {
  return db
    .updateTable('webhooks')
    .set({ ...changes, updated_at: now })
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A page of webhooks with their health (only one app's, with `appId`): one statement, the count apart. */
export async function listWebhooks(
  db: Executor,
  scope: Scope,
  page: PageInput & { appId?: string | undefined },
  since: Date,
): Promise<Page<WebhookView>> {
  return pageById(
    liveWebhooks(db, scope, page.appId),
    viewed(db, scope, since, page.appId),
    page,
    'webhooks.id',
  );
}

/** The event types the enabled webhooks (endpoints and open listeners) of each app subscribe to, in a mode. */
export async function appSubscriptions(
  db: Executor,
  mode: Mode,
  appIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (appIds.length === 0) return out;
  const rows = await db
    .selectFrom('webhooks')
    .select(['app_id', 'events'])
    .where('app_id', 'in', appIds)
    .where('mode', '=', mode)
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null)
    .execute();
  for (const row of rows) {
    const types = out.get(row.app_id!) ?? new Set<string>();
    for (const t of row.events) types.add(t);
    out.set(row.app_id!, types);
  }
  return out;
}

/** Soft-deletes every live webhook of the app; answers their ids. */
export async function deleteAppWebhooks(db: Executor, appId: string, at: Date): Promise<string[]> {
  const rows = await db
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: 'The app was deleted.', deleted_at: at, updated_at: at })
    .where('app_id', '=', appId)
    .where('deleted_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Retention (the delivery module's purge): webhooks deleted before `before` whose deliveries are gone, at most
 * `batch` of them; answers how many.
 */
export async function purgeDeletedWebhooks(db: Executor, before: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from webhooks where id in (
      select w.id from webhooks w
      where w.deleted_at < ${before}::timestamptz
        and not exists (select 1 from deliveries d where d.webhook_id = w.id)
      limit ${batch}::int
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
