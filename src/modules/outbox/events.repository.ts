// The events table (the outbox): events and their deliveries, written together in the caller's transaction
// (the fan-out function inserts the delivery module's rows in the same statement), and the reads of the
// merchant interface, of `svc listen` and of the test route.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import { idFloor } from '../../lib/ids.ts';
import { pageById } from '../../db/paging.ts';
import { toPage, type Page, type PageInput, type Scope } from '../../lib/scope.ts';

/** An installation of an app (a grant), as an app delivery's body names it. */
export interface Installation {
  appId: string;
  grantId: string;
  storeId: string | null;
}

/** Who receives an event, besides its own row (migration 0092 says how each is read). */
export interface Audience {
  /** The merchant's own subscribed webhooks. */
  toMerchant: boolean;
  /** Every installed app's subscribed webhooks: only while the installation may read, or whatever its scopes. */
  toInstalled: 'read' | 'any' | null;
  /** One installation's app, named by the caller. */
  installation: Installation | null;
}

export interface EventRow {
  id: string;
  merchantId: string;
  mode: Mode;
  type: string;
  payload: string;
  createdAt: Date;
  /** The X-Request-Id of the call that recorded it, if a call did. */
  requestId: string | null;
  audience: Audience;
  /** What orders its deliveries to per_object endpoints: given at ingestion, else `data.id`; null if neither. */
  orderingKey: string | null;
}

export interface RecordedEvent {
  /** False when the merchant does not exist: nothing was written for the event. */
  knownMerchant: boolean;
  /** False when the event id already existed. */
  inserted: boolean;
  deliveries: number;
}

/**
 * Records events and fans them out in ONE statement (svc_record_sequenced_events, migration 0092): each event
 * with the next sequence of its merchant and mode, and one delivery per receiving endpoint, the merchant's own
 * webhooks and the installed apps' together (a single INSERT ... SELECT). Atomic on its own, so a caller
 * without a transaction needs no BEGIN/COMMIT either. One event is a batch of one. With a channel, the
 * workers' wake-up is a NOTIFY delivered by PostgreSQL at commit. The answer has one entry per event, in the
 * events' order; an id may appear once per call. Fails with SQLSTATE 40001 (`CONCURRENT_ID`) when an id of
 * the batch was recorded by another transaction meanwhile: nothing is written, and the same call again
 * answers it as a duplicate.
 */
export async function recordEvents(
  db: Executor,
  events: readonly EventRow[],
  channel: string | null,
): Promise<RecordedEvent[]> {
  const input = events.map((e) => ({
    id: e.id,
    merchant_id: e.merchantId,
    mode: e.mode,
    type: e.type,
    payload: e.payload,
    created_at: e.createdAt.toISOString(),
    id_prefix: idFloor('dlv', e.createdAt),
    request_id: e.requestId,
    to_merchant: e.audience.toMerchant,
    to_installed: e.audience.toInstalled,
    app_id: e.audience.installation?.appId ?? null,
    grant_id: e.audience.installation?.grantId ?? null,
    store_id: e.audience.installation?.storeId ?? null,
    ordering_key: e.orderingKey,
  }));
  const { rows } = await sql<{ id: string; known_merchant: boolean; inserted: boolean; deliveries: number }>`
    select id, known_merchant, inserted, deliveries
    from svc_record_sequenced_events(${JSON.stringify(input)}::jsonb, ${channel}::text)
  `.execute(db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return events.map((e) => {
    const r = byId.get(e.id);
    if (!r) throw new Error(`event ${e.id} missing from its batch result`);
    return { knownMerchant: r.known_merchant, inserted: r.inserted, deliveries: r.deliveries };
  });
}

/** SQLSTATE of a batch that met an id recorded meanwhile by another transaction: the same call again is safe. */
export const CONCURRENT_ID = '40001';

/**
 * The event alone, with its sequence, for a delivery made by hand (the test route); the payload as stored
 * (with its sequence) is the answer.
 */
export async function insertEvent(db: Executor, event: EventRow): Promise<string> {
  const { rows } = await sql<{ payload: string }>`
    with counter as (
      insert into event_sequences as s (merchant_id, mode, last)
      values (${event.merchantId}, ${event.mode}, 1)
      on conflict (merchant_id, mode) do update set last = s.last + 1
      returning s.last
    )
    insert into events (id, merchant_id, mode, type, payload, created_at, request_id, sequence)
    select ${event.id}, ${event.merchantId}, ${event.mode}, ${event.type}, svc_sequenced(${event.payload}, c.last),
           ${event.createdAt}::timestamptz, ${event.requestId}, c.last
    from counter c
    returning payload
  `.execute(db);
  return rows[0]!.payload;
}

/** The last sequence given in the merchant's mode (0 before its first event). */
export async function lastSequence(db: Executor, scope: Scope): Promise<number> {
  const row = await db
    .selectFrom('event_sequences')
    .select('last')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst();
  return row?.last ?? 0;
}

export interface EventFilter {
  type?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** An event id, or the id of the object the event is about (`data.id`). */
  q?: string | undefined;
  /** Only events after this sequence, and then oldest first (a receiver filling a gap). */
  afterSequence?: number | undefined;
}

export interface StoredEvent {
  id: string;
  type: string;
  payload: string;
  created_at: Date;
  sequence: number;
}

const STORED = ['id', 'type', 'payload', 'created_at', 'sequence'] as const;

/**
 * The merchant's events, newest first: one range of events_merchant_idx, or the data.id index for `q`. With
 * `afterSequence`, oldest first by sequence: one range of events_sequence_idx, `startingAfter` continuing after
 * the sequence of that event.
 */
export async function listEvents(
  db: Executor,
  scope: Scope,
  f: EventFilter,
  page: PageInput,
): Promise<Page<StoredEvent>> {
  let q = db.selectFrom('events').where('merchant_id', '=', scope.merchantId).where('mode', '=', scope.mode);
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
  if (f.afterSequence === undefined) return pageById(q, q.select(STORED), page);
  const filtered = q.where('sequence', '>', f.afterSequence);
  const after = page.startingAfter;
  const rows = (
    after
      ? filtered.where('sequence', '>', (eb) =>
          eb
            .selectFrom('events as cursor')
            .select('cursor.sequence')
            .where('cursor.merchant_id', '=', scope.merchantId)
            .where('cursor.mode', '=', scope.mode)
            .where('cursor.id', '=', after),
        )
      : filtered
  )
    .select(STORED)
    .orderBy('sequence', 'asc')
    .limit(page.limit + 1)
    .execute();
  const count = filtered.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const [items, total] = await Promise.all([rows, count]);
  return toPage(page, items, Number(total.n));
}

/**
 * The stored payload of a delivery's event, by id alone: the caller reached the delivery through a webhook of
 * its own, and an app webhook's deliveries carry events of the merchants that installed the app.
 */
export async function deliveredPayload(db: Executor, eventId: string): Promise<string | undefined> {
  const row = await db.selectFrom('events').select('payload').where('id', '=', eventId).executeTakeFirst();
  return row?.payload;
}

export async function findEvent(db: Executor, scope: Scope, id: string): Promise<StoredEvent | undefined> {
  return db
    .selectFrom('events')
    .select(STORED)
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
    .select(STORED)
    .where('merchant_id', '=', f.merchantId)
    .where('mode', '=', f.mode)
    .where('id', '>', f.afterId)
    .where('id', '>=', idFloor('evt', f.since))
    .where('created_at', '>=', f.since);
  if (f.types && f.types.length > 0) q = q.where('type', 'in', f.types);
  return q.orderBy('id', 'asc').limit(f.limit).execute();
}

/** The `data` of the merchant's latest event about an object (`data.id`), through the data.id index. */
export async function latestDataAbout(
  db: Executor,
  scope: Scope,
  objectId: string,
): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .selectFrom('events')
    .select(sql<string>`payload::jsonb #>> '{data}'`.as('data'))
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where(sql`(payload::jsonb #>> '{data,id}')`, '=', objectId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? (JSON.parse(row.data) as Record<string, unknown>) : undefined;
}

/**
 * The merchant's events recorded during a request (the request log's detail, API.md section 11.6): a scan of
 * the request's few seconds of events_created_idx, so that ingestion writes no index for a page seldom read.
 */
export async function eventIdsOfRequest(
  db: Executor,
  scope: Scope,
  requestId: string,
  window: { from: Date; to: Date },
): Promise<string[]> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.to)
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('request_id', '=', requestId)
    .limit(100)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Retention (the delivery module's purge, which runs it after the deliveries'): events made before `before`,
 * at most `batch` of them; answers how many.
 */
export async function purgeEvents(db: Executor, before: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from events where id in (
      select id from events where created_at < ${before}::timestamptz limit ${batch}::int
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
