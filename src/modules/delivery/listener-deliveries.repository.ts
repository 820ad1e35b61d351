// SQL of the deliveries of `svc listen` streams: one recorded per event a merchant's stream sends, the fan-out's
// for an app's stream, and the client's report as the attempt (the listener rows are the webhooks module's).
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { DeliveryRow } from './deliveries.repository.ts';
import type { Scope } from '../../lib/scope.ts';
import { idFloor, newId } from '../../lib/ids.ts';
import { outcomeOf } from './attempt-outcome.ts';

/** Cancels what the listeners' streams sent unanswered, once the listeners are closed (webhooks module). */
export async function cancelListenerDeliveries(
  db: Executor,
  ids: string[],
  reason: string,
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('deliveries')
    .set({ status: 'cancelled', last_error: reason, updated_at: now })
    .where('webhook_id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * When the listen session that was sent this event began: the `listen_from` of the listener that got it.
 * Undefined when no listener of the merchant got it (a Last-Event-ID from elsewhere).
 */
export async function sessionStartOf(db: Executor, scope: Scope, eventId: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select('w.listen_from')
    .where('d.event_id', '=', eventId)
    .where('d.merchant_id', '=', scope.merchantId)
    .where('d.mode', '=', scope.mode)
    .where('w.kind', '=', 'listener')
    .where('w.listen_from', 'is not', null)
    .orderBy('d.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.listen_from ?? undefined;
}

/**
 * One delivery per event the stream sends, already "in flight": no due time, so no worker ever claims it
 * (the claim reads `next_attempt_at <= $now`); the client's report finishes it.
 */
export async function insertListenerDeliveries(
  db: Executor,
  rows: {
    id: string;
    webhook_id: string;
    merchant_id: string;
    mode: 'test';
    event_id: string;
    event_type: string;
  }[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('deliveries')
    .values(rows.map((r) => ({ ...r, next_attempt_at: null, created_at: now, updated_at: now })))
    .execute();
}

export interface ReportedOutcome {
  /** The client had forwarded this event already (a replay overlapping what it got): no attempt is made. */
  duplicate: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  requestHeaders: string | null;
}

/**
 * The client's answer as the delivery's one attempt: succeeded on 2xx, failed otherwise. Only a pending
 * delivery of a listener of the scope takes it; undefined otherwise (unknown, not a listener's, or done). The
 * caller then notes the attempt on the listener (noteListenerAttempt, webhooks module), unless a duplicate.
 */
export async function recordListenerOutcome(
  db: Executor,
  scope: Scope,
  webhookId: string,
  deliveryId: string,
  o: ReportedOutcome,
  now: Date,
): Promise<(DeliveryRow & { app_id: string | null }) | undefined> {
  const ok = o.status !== null && o.status >= 200 && o.status < 300;
  const row = await db
    .updateTable('deliveries')
    .set(
      o.duplicate
        ? { status: 'cancelled', last_error: 'Already forwarded by this listener.', updated_at: now }
        : {
            status: ok ? 'succeeded' : 'failed',
            attempt_count: sql`attempt_count + 1`,
            last_attempt_at: now,
            last_response_status: o.status,
            last_error: ok ? null : (o.error ?? `The local endpoint answered ${o.status}.`),
            updated_at: now,
          },
    )
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhooks')
          .select('id')
          .where('id', '=', webhookId)
          .where('kind', '=', 'listener')
          .where('merchant_id', '=', scope.merchantId),
      ),
    )
    .returningAll()
    // an app's listener (`svc listen --app`) names the app, as its deliveries and attempts show it
    .returning(sql<string | null>`(select app_id from webhooks where id = ${webhookId})`.as('app_id'))
    .executeTakeFirst();
  if (!row || o.duplicate) return row;
  await db
    .insertInto('delivery_attempts')
    .values({
      id: newId('att', now.getTime() - o.durationMs),
      delivery_id: row.id,
      merchant_id: row.merchant_id,
      mode: row.mode,
      webhook_id: row.webhook_id,
      event_id: row.event_id,
      event_type: row.event_type,
      store_id: row.store_id,
      app_id: row.app_id,
      outcome: outcomeOf(o.status, o.error),
      number: row.attempt_count,
      started_at: new Date(now.getTime() - o.durationMs),
      duration_ms: o.durationMs,
      response_status: o.status,
      response_body: o.responseBody,
      request_headers: o.requestHeaders,
      response_headers: null,
      error: o.error,
    })
    .execute();
  return row;
}

/**
 * What the fan-out recorded for an app's listener (no due time: its stream sends it) after a delivery id,
 * oldest first, with the event's payload: one range of deliveries_webhook_idx. `since` bounds it to the
 * last hour, as a merchant stream's events.
 */
export async function listenerDeliveriesAfter(
  db: Executor,
  webhookId: string,
  afterId: string,
  since: Date,
  limit: number,
) {
  return db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'd.event_type', 'd.grant_id', 'd.store_id', 'd.created_at', 'e.payload'])
    .where('d.webhook_id', '=', webhookId)
    .where('d.id', '>', afterId)
    .where('d.id', '>=', idFloor('dlv', since))
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', 'is', null)
    .orderBy('d.id', 'asc')
    .limit(limit)
    .execute();
}
