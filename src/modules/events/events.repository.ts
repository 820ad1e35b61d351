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

export interface EventFilter {
  merchantId: string;
  mode: Mode;
  limit: number;
  startingAfter?: string | undefined;
  type?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** An event id, or the id of the object the event is about (`data.id`). */
  q?: string | undefined;
}

export interface StoredEvent {
  id: string;
  type: string;
  payload: string;
  created_at: Date;
}

/** The merchant's events, newest first: one range of events_merchant_idx, or the data.id index for `q`. */
export async function listEvents(
  db: Executor,
  f: EventFilter,
): Promise<{ rows: StoredEvent[]; count: number }> {
  let q = db.selectFrom('events').where('merchant_id', '=', f.merchantId).where('mode', '=', f.mode);
  if (f.type) q = q.where('type', '=', f.type);
  // Ids begin with their creation time: a time bound is also an id bound (see audit.repository.ts).
  if (f.since) q = q.where('created_at', '>=', f.since).where('id', '>=', idFloor('evt', f.since));
  if (f.until) q = q.where('created_at', '<', f.until);
  if (f.q) {
    const needle = f.q;
    q = q.where((eb) =>
      eb.or([eb('id', '=', needle), eb(sql`(payload::jsonb #>> '{data,id}')`, '=', needle)]),
    );
  }
  const page = f.startingAfter ? q.where('id', '<', f.startingAfter) : q;
  const [rows, total] = await Promise.all([
    page
      .select(['id', 'type', 'payload', 'created_at'])
      .orderBy('id', 'desc')
      .limit(f.limit + 1)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function findEvent(
  db: Executor,
  scope: { merchantId: string; mode: Mode },
  id: string,
): Promise<StoredEvent | undefined> {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Events of a merchant and mode after an id, oldest first: what a `svc listen` stream sends next. One range of
 * events_merchant_idx; `since` bounds a replay to the last hour.
 */
export async function eventsAfter(
  db: Executor,
  f: {
    merchantId: string;
    mode: Mode;
    afterId: string;
    since: Date;
    types?: string[] | undefined;
    limit: number;
  },
): Promise<StoredEvent[]> {
  let q = db
    .selectFrom('events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('merchant_id', '=', f.merchantId)
    .where('mode', '=', f.mode)
    .where('id', '>', f.afterId)
    .where('id', '>=', idFloor('evt', f.since))
    .where('created_at', '>=', f.since);
  if (f.types && f.types.length > 0) q = q.where('type', 'in', f.types);
  return q.orderBy('id', 'asc').limit(f.limit).execute();
}
