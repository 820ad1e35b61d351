// The outbox writes: an event and its deliveries, in the caller's transaction.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';

export interface EventRow {
  id: string;
  merchantId: string;
  mode: Mode;
  type: string;
  payload: string;
  createdAt: Date;
}

/**
 * Records the event and fans it out in ONE statement: the event insert, one delivery per enabled webhook of
 * the merchant and mode subscribed to the type (INSERT ... SELECT, ids made in SQL), and, when a channel is
 * given, the worker wake-up (delivered by PostgreSQL at commit). One round trip per event, and atomic on its
 * own, so a caller without a transaction needs no BEGIN/COMMIT either. `inserted` is false when the event id
 * already existed.
 */
export async function insertEventWithDeliveries(
  db: Executor,
  event: EventRow,
  channel: string | null,
): Promise<{ inserted: boolean; deliveries: number }> {
  const { rows } = await sql<{ inserted: number; deliveries: number }>`
    with ev as (
      insert into events (id, merchant_id, mode, type, payload, created_at)
      values (${event.id}, ${event.merchantId}, ${event.mode}, ${event.type}, ${event.payload}, ${event.createdAt})
      on conflict (id) do nothing
      returning id
    ), dl as (
      insert into deliveries
        (id, webhook_id, merchant_id, mode, event_id, event_type, next_attempt_at, created_at, updated_at)
      select svc_new_id('dlv', ${event.createdAt}::timestamptz), w.id, w.merchant_id, w.mode, ev.id,
             ${event.type}::text, ${event.createdAt}::timestamptz, ${event.createdAt}::timestamptz,
             ${event.createdAt}::timestamptz
      from ev
      join webhooks w
        on w.merchant_id = ${event.merchantId} and w.mode = ${event.mode}
       and w.status = 'enabled' and w.deleted_at is null and ${event.type}::text = any (w.events)
      returning 1
    ), n as (select count(*)::int as deliveries from dl)
    select (select count(*)::int from ev) as inserted, n.deliveries,
           case when n.deliveries > 0 and ${channel}::text is not null then pg_notify(${channel}::text, '') end as woke
    from n
  `.execute(db);
  const row = rows[0]!;
  return { inserted: row.inserted > 0, deliveries: row.deliveries };
}

/** The event alone, for a delivery made by hand (the test route). */
export async function insertEvent(db: Executor, event: EventRow): Promise<void> {
  await db
    .insertInto('events')
    .values({
      id: event.id,
      merchant_id: event.merchantId,
      mode: event.mode,
      type: event.type,
      payload: event.payload,
      created_at: event.createdAt,
    })
    .execute();
}
