// SQL of webhook subscriptions. Every query is scoped by merchant and mode; deleted webhooks are invisible.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Page, PageInput, Scope } from '../../lib/scope.ts';
import type { WebhooksTable } from './webhooks.table.ts';

export type WebhookRow = Selectable<WebhooksTable>;

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A live webhook of the tenant, by id; deleted ones are invisible. */
function ownWebhook(db: Executor, scope: Scope, id: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
}

export async function findWebhook(db: Executor, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  return ownWebhook(db, scope, id).executeTakeFirst();
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
): Promise<WebhookRow> {
  return db
    .updateTable('webhooks')
    .set({ ...changes, updated_at: new Date() })
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listWebhooks(db: Executor, scope: Scope, page: PageInput): Promise<Page<WebhookRow>> {
  const q = db
    .selectFrom('webhooks')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('deleted_at', 'is', null);
  return pageById(q, q.selectAll(), page);
}
