// The event outbox: an event is recorded in the caller's transaction together with one
// delivery per receiving endpoint (the merchant's own enabled webhooks subscribed to its type, and those of
// the apps installed on the merchant, API.md section 11.1), so nothing is announced that did not happen and
// nothing that happened goes unannounced. The commit wakes the delivery workers of every process.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { Batcher } from '../../lib/batcher.ts';
import type { Mode } from '../../lib/credentials.ts';
import { newId } from '../../lib/ids.ts';
import {
  EVENT_CATALOG,
  checkPayload,
  isEventType,
  isServiceRecorded,
  reachesAnyScope,
} from '../events/index.ts';
import { appSubscriptions } from '../webhooks/index.ts';
import { DELIVERY_CHANNEL, type Signal } from './signal.ts';
import {
  CONCURRENT_ID,
  insertEvent,
  recordEvents,
  type Audience,
  type EventRow,
  type Installation,
  type RecordedEvent,
} from './events.repository.ts';

export type { Installation } from './events.repository.ts';

export const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  /** An event id of the catalog, e.g. `cart.abandoned`. */
  type: string;
  /** The object the event is about (API.md section 6). */
  data: unknown;
  /** Given by the caller for idempotent ingestion; `evt_` + 1-64 of [A-Za-z0-9_-]. */
  id?: string;
  /**
   * The X-Request-Id of the call that records it, so that the request log links the call to the deliveries it
   * caused (API.md section 11.6). Absent for events no call makes (the cart sweep).
   */
  requestId?: string | null;
  /**
   * The one installation the event is about (lifecycle events, store.redact): its app's webhooks receive it
   * with these ids, whatever the grant's state, instead of every installed app's.
   */
  installation?: Installation;
  /** With `installation`: to the app's webhooks only, not the merchant's own (store.redact). */
  appOnly?: boolean;
  /**
   * What orders the event's deliveries to `per_object` endpoints (API.md section 11.4), 1-200 characters;
   * absent: its `data.id`.
   */
  orderingKey?: string | undefined;
}

export interface EmittedEvent {
  id: string;
  deliveries: number;
  duplicate: boolean;
}

/**
 * Who receives the event besides nobody (API.md section 11.1): one installation's app (and the merchant
 * unless app-only); a type the service records about an installation, triggered by hand with none, the
 * merchant only; any other type the merchant and every installed app, whatever the installation's scopes for
 * lifecycle and privacy types, only while they include reading for the rest.
 */
function audienceOf(event: NewEvent): Audience {
  if (event.installation)
    return { toMerchant: event.appOnly !== true, toInstalled: null, installation: event.installation };
  if (isServiceRecorded(event.type)) return { toMerchant: true, toInstalled: null, installation: null };
  return { toMerchant: true, toInstalled: reachesAnyScope(event.type) ? 'any' : 'read', installation: null };
}

export const ORDERING_KEY_MAX = 200;

/** The key given, else the id of the object the event is about; null when there is neither. */
function orderingKeyOf(event: NewEvent): string | null {
  if (event.orderingKey !== undefined) return event.orderingKey;
  const id = (event.data as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

function buildEvent(event: NewEvent, now: Date): EventRow {
  if (!isEventType(event.type)) throw new Error(`event type ${event.type} is not in the catalog`);
  if (event.id !== undefined && !EVENT_ID.test(event.id)) throw new Error(`malformed event id ${event.id}`);
  const id = event.id ?? newId('evt', now.getTime());
  const orderingKey = orderingKeyOf(event);
  // Serialised once, and given its sequence by the statement that records it (svc_sequenced, migration 0060):
  // every attempt of every delivery sends, and signs, these exact bytes.
  const payload = JSON.stringify({
    id,
    type: event.type,
    timestamp: now.toISOString(),
    api_version: 'v1',
    mode: event.mode,
    merchant_id: event.merchantId,
    ordering_key: orderingKey,
    data: event.data,
  });
  return {
    id,
    merchantId: event.merchantId,
    mode: event.mode,
    type: event.type,
    payload,
    createdAt: now,
    requestId: event.requestId ?? null,
    audience: audienceOf(event),
    orderingKey,
  };
}

/**
 * Records the event, made at `at` (the service's clock), and its deliveries in `trx`; a repeated id records
 * nothing and reports a duplicate.
 */
export async function emitEvent(trx: Executor, event: NewEvent, at: Date): Promise<EmittedEvent> {
  return (await emitEvents(trx, [event], at))[0]!;
}

/** The same for several events, in one statement; the answer is in the events' order. */
export async function emitEvents(
  trx: Executor,
  events: readonly NewEvent[],
  at: Date,
): Promise<EmittedEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => buildEvent(event, at));
  const recorded = await recordEvents(trx, rows, DELIVERY_CHANNEL);
  return rows.map((row, i) => {
    const { knownMerchant, inserted, deliveries } = recorded[i]!;
    // The callers (the cart sweep, a triggered event, a grant change) act for a merchant that exists.
    if (!knownMerchant) throw new Error(`event ${row.id}: merchant ${row.merchantId} does not exist`);
    return inserted
      ? { id: row.id, deliveries, duplicate: false }
      : { id: row.id, deliveries: 0, duplicate: true };
  });
}

/**
 * The event types each installation receives now (a connection's `events`, API.md section 11.1): those its
 * app's enabled webhooks of the mode subscribe to, in catalog order, and while the installation may not read
 * only the lifecycle and privacy ones, which the fan-out sends whatever the scopes (audienceOf, migration 0092).
 */
export async function eventsOfInstallations(
  db: Executor,
  mode: Mode,
  installations: readonly { appId: string; reads: boolean }[],
): Promise<string[][]> {
  const subscribed = await appSubscriptions(db, mode, [...new Set(installations.map((i) => i.appId))]);
  return installations.map(({ appId, reads }) => {
    const types = subscribed.get(appId) ?? new Set<string>();
    return EVENT_CATALOG.map((e) => e.id).filter((t) => types.has(t) && (reads || reachesAnyScope(t)));
  });
}

/** Records an event without fanning it out, for a delivery the caller makes itself (a webhook test). */
export async function recordEvent(
  trx: Executor,
  event: NewEvent,
  at: Date,
): Promise<{ id: string; payload: string }> {
  const row = buildEvent(event, at);
  return { id: row.id, payload: await insertEvent(trx, row) };
}

/**
 * The ingestion batch's write, autocommitted: once more when an id of the batch was recorded meanwhile by
 * another transaction (the first try wrote nothing, and the second finds that event a duplicate).
 */
export async function recordBatch(db: Executor, rows: readonly EventRow[]): Promise<RecordedEvent[]> {
  try {
    return await recordEvents(db, rows, null);
  } catch (err) {
    if ((err as { code?: unknown }).code !== CONCURRENT_ID) throw err;
    return recordEvents(db, rows, null);
  }
}

/** What ingestion needs of the module's state: the group commit, and the two wake-ups. */
export interface Ingestion {
  /** Concurrent ingestions, written by one autocommitted statement (outbox/index.ts). */
  readonly batch: Batcher<EventRow, RecordedEvent>;
  /** The delivery workers' wake-up. */
  readonly deliveries: Signal;
  /** `svc listen` streams' wake-up. */
  readonly listeners: Signal;
}

/**
 * Ingestion from outside the process (HTTP route, CLI): checks what a caller can get wrong (the type, the id,
 * the data against the schema of its type), then records the event and its deliveries, batched with
 * concurrent ingestions into one autocommitted statement (atomic per event; no BEGIN/COMMIT round trips), and
 * wakes the workers after the commit.
 */
export async function ingestEvent(
  ctx: Context,
  ingestion: Ingestion,
  event: NewEvent,
): Promise<EmittedEvent> {
  if (!isEventType(event.type)) {
    throw new AppError('validation_failed', `type ${event.type} is not an event of the catalog.`, {
      details: [{ field: 'type', issue: 'is not an event of the catalog' }],
    });
  }
  if (isServiceRecorded(event.type)) {
    throw new AppError('validation_failed', `type ${event.type} is recorded by the service itself.`, {
      details: [{ field: 'type', issue: 'is recorded by the service itself, about one installation' }],
    });
  }
  if (event.id !== undefined && !EVENT_ID.test(event.id))
    throw invalid('id', 'must be evt_ + 1-64 of [A-Za-z0-9_-]');
  const key = event.orderingKey;
  if (key !== undefined && (key.length === 0 || key.length > ORDERING_KEY_MAX))
    throw invalid('ordering_key', `must be 1-${ORDERING_KEY_MAX} characters`);
  checkPayload(event.type, event.data);
  const row = buildEvent(event, new Date(ctx.clock.now()));
  const result = await ingestion.batch.submit(row);
  if (!result.knownMerchant) {
    throw new AppError('validation_failed', 'merchant_id is not a known merchant.', {
      details: [{ field: 'merchant_id', issue: 'is not a known merchant' }],
    });
  }
  if (!result.inserted) return { id: row.id, deliveries: 0, duplicate: true };
  ctx.metrics.countEvent(row.type, result.deliveries);
  if (result.deliveries > 0) ingestion.deliveries.raise();
  if (event.mode === 'test') ingestion.listeners.raise();
  return { id: row.id, deliveries: result.deliveries, duplicate: false };
}
