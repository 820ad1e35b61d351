// SQL of `svc listen` listeners: webhook rows of kind `listener`, opened and closed by the dev-loop module's
// streams (the deliveries their streams record are the delivery module's, listener-deliveries.repository.ts).
import type { Executor } from '../../db/database.ts';

/**
 * A stream touches its listener every 15 s (its keep-alive); a listener untouched for 2 minutes belongs to a
 * process that died with its stream open, and is closed by the next stream that looks (any process).
 */
export const LISTENER_STALE_MS = 120_000;

export async function touchListener(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('kind', '=', 'listener')
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Soft-deletes the listeners (they leave the webhooks list); the caller then cancels what their streams sent
 * unanswered (cancelListenerDeliveries, the delivery module's).
 */
export async function closeListeners(
  db: Executor,
  ids: string[],
  reason: string,
  now: Date,
): Promise<number> {
  if (ids.length === 0) return 0;
  const { numUpdatedRows } = await db
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: reason, deleted_at: now, updated_at: now })
    .where('id', 'in', ids)
    .where('kind', '=', 'listener')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** Listeners of any merchant whose stream stopped touching them. */
export async function staleListeners(db: Executor, now: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select('id')
    .where('kind', '=', 'listener')
    .where('deleted_at', 'is', null)
    .where('updated_at', '<', new Date(now.getTime() - LISTENER_STALE_MS))
    .limit(100)
    .execute();
  return rows.map((r) => r.id);
}

/** The listener's last attempt, after the client's report was recorded as one (its health, as an endpoint's). */
export async function noteListenerAttempt(
  db: Executor,
  webhookId: string,
  attempt: { status: number | null; error: string | null },
  now: Date,
): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ last_attempt_at: now, last_response_status: attempt.status, last_error: attempt.error })
    .where('id', '=', webhookId)
    .execute();
}
