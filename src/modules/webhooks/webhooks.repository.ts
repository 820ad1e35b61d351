// SQL of webhook subscriptions. Every query is scoped by merchant and mode; deleted webhooks are invisible.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Scope } from '../../lib/scope.ts';
import type { WebhooksTable } from './webhooks.table.ts';

export type WebhookRow = Selectable<WebhooksTable>;

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findWebhook(db: Executor, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Locks the row for the rest of the transaction, so concurrent changes of one webhook serialise. */
export async function lockWebhook(db: Executor, scope: Scope, id: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
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

export async function listWebhooks(
  db: Executor,
  scope: Scope,
  limit: number,
  startingAfter: string | undefined,
): Promise<{ rows: WebhookRow[]; count: number }> {
  const q = db
    .selectFrom('webhooks')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('deleted_at', 'is', null);
  const page = startingAfter ? q.where('id', '<', startingAfter) : q;
  const [rows, total] = await Promise.all([
    page
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}
