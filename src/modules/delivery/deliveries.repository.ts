// SQL of deliveries as merchants see them, and of the changes the dev-loop and webhooks modules make to them
// (the queue's own statements are claim-deliveries, record-outcomes and release-leases).
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Page, PageInput } from '../../lib/scope.ts';
import type { DeliveriesTable, DeliveryAttemptsTable, DeliveryStatus } from './delivery.table.ts';

export type DeliveryRow = Selectable<DeliveriesTable>;
export type AttemptRow = Selectable<DeliveryAttemptsTable>;

/** Made at `now` (the service's clock): the retention purge reads `created_at`. */
export async function insertDelivery(
  db: Executor,
  row: Insertable<DeliveriesTable>,
  now: Date,
): Promise<DeliveryRow> {
  return db
    .insertInto('deliveries')
    .values({ ...row, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The installation an earlier delivery of the event to this (app) webhook was made for. */
export async function installationOf(db: Executor, webhookId: string, eventId: string) {
  const row = await db
    .selectFrom('deliveries')
    .select(['grant_id', 'store_id'])
    .where('event_id', '=', eventId)
    .where('webhook_id', '=', webhookId)
    .where('grant_id', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** Scoped by webhook, which the caller found within the merchant and mode. */
export async function findDelivery(
  db: Executor,
  webhookId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** `storeId`: an app webhook's deliveries for one installing store (deliveries_store_idx, migration 0130). */
export async function listDeliveries(
  db: Executor,
  webhookId: string,
  filter: { status?: DeliveryStatus | undefined; storeId?: string | undefined },
  page: PageInput,
): Promise<Page<DeliveryRow>> {
  let q = db.selectFrom('deliveries').where('webhook_id', '=', webhookId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.storeId !== undefined) q = q.where('store_id', '=', filter.storeId);
  return pageById(q, q.selectAll(), page);
}

/** A manual retry: due at `now`, one more attempt (`step` past the schedule unless it was still pending). */
export async function requeueDelivery(
  db: Executor,
  id: string,
  step: number,
  now: Date,
): Promise<DeliveryRow> {
  return db
    .updateTable('deliveries')
    .set({
      status: 'pending',
      step,
      next_attempt_at: now,
      locked_until: null,
      locked_by: null,
      // due now; should it wait for its key or its endpoint's pace, the claim parks it again
      parked: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Pending deliveries of a webhook that no worker holds at `now` are cancelled; one in flight finishes. */
export async function cancelPendingDeliveries(db: Executor, webhookId: string, now: Date): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The deliveries of some events (the events page, resend), within the merchant and mode, each with its
 * webhook's app (null for the merchant's own webhooks).
 */
export async function deliveriesOfEvents(
  db: Executor,
  scope: { merchantId: string; mode: string },
  eventIds: string[],
): Promise<(DeliveryRow & { app_id: string | null })[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('deliveries as d')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .selectAll('d')
    .select('w.app_id')
    .where('d.event_id', 'in', eventIds)
    .where('d.merchant_id', '=', scope.merchantId)
    .where('d.mode', '=', scope.mode as DeliveryRow['mode'])
    .orderBy('d.id', 'desc')
    .execute();
}
