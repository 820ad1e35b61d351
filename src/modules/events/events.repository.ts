// The outbox writes: an event and its deliveries, in the caller's transaction.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import { idFloor } from '../../lib/ids.ts';

export interface EventRow {
  id: string;
  merchantId: string;
  mode: Mode;
  type: string;
  payload: string;
  createdAt: Date;
}

/**
 * Records the event and fans it out in ONE round trip (svc_record_event, migration 0004): the event, one
 * delivery per enabled webhook of the merchant and mode subscribed to the type (a single INSERT ... SELECT),
 * and, when a channel is given, the worker wake-up (delivered by PostgreSQL at commit). Atomic on its own,
 * so a caller without a transaction needs no BEGIN/COMMIT either. `inserted` is false when the event id
 * already existed.
 */
export async function insertEventWithDeliveries(
  db: Executor,
  event: EventRow,
  channel: string | null,
): Promise<{ inserted: boolean; deliveries: number }> {
  const { rows } = await sql<{ inserted: boolean; deliveries: number }>`
    select inserted, deliveries from svc_record_event(
      ${event.id}::text, ${event.merchantId}::text, ${event.mode}::text, ${event.type}::text,
      ${event.payload}::text, ${event.createdAt}::timestamptz, ${idFloor('dlv', event.createdAt)}::text,
      ${channel}::text)
  `.execute(db);
  const row = rows[0]!;
  return { inserted: row.inserted, deliveries: row.deliveries };
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
