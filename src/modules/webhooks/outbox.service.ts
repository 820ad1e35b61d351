// The event outbox of the webhooks module: an event is recorded in the caller's transaction together with one
// delivery per enabled webhook of its merchant and mode subscribed to its type, so nothing is announced that
// did not happen and nothing that happened goes unannounced. The commit wakes the delivery workers of every
// process.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { Batcher } from '../../lib/batcher.ts';
import type { Mode } from '../../lib/credentials.ts';
import { newId } from '../../lib/ids.ts';
import { checkPayload, isEventType } from '../events/index.ts';
import { DELIVERY_CHANNEL, type Signal } from './signal.ts';
import {
  CONCURRENT_ID,
  insertEvent,
  recordEvents,
  type EventRow,
  type RecordedEvent,
} from './events.repository.ts';

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
    orderingKey,
  };
}

/**
 * Records the event, made at `at` (the service's clock), and its deliveries in `trx`; a repeated id records
 * nothing and reports a duplicate.
 */
export async function emitEvent(trx: Executor, event: NewEvent, at: Date): Promise<EmittedEvent> {
  const row = buildEvent(event, at);
  const [{ knownMerchant, inserted, deliveries }] = (await recordEvents(trx, [row], DELIVERY_CHANNEL)) as [
    RecordedEvent,
  ];
  // The callers (the cart sweep, a triggered event) act for a merchant that exists: anything else is a bug.
  if (!knownMerchant) throw new Error(`event ${row.id}: merchant ${row.merchantId} does not exist`);
  if (!inserted) return { id: row.id, deliveries: 0, duplicate: true };
  return { id: row.id, deliveries, duplicate: false };
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
  /** Concurrent ingestions, written by one autocommitted statement (webhooks/index.ts). */
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
