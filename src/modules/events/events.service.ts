// The event outbox: an event is recorded in the caller's transaction, with the change it announces.
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import { newId } from '../../lib/ids.ts';
import { insertEvent } from './events.repository.ts';

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  /** An event id of the catalog, e.g. `cart.abandoned`. */
  type: string;
  /** The object the event is about (API.md section 6). */
  data: unknown;
  /** Given by the caller for idempotent ingestion; `evt_` + 1-64 of [A-Za-z0-9_-]. */
  id?: string;
}

export interface EmittedEvent {
  id: string;
  deliveries: number;
  duplicate: boolean;
}

export async function emitEvent(trx: Executor, event: NewEvent): Promise<EmittedEvent> {
  const now = new Date();
  const id = event.id ?? newId('evt', now);
  // Serialised once: every attempt of every delivery sends, and signs, these exact bytes.
  const payload = JSON.stringify({
    id,
    type: event.type,
    timestamp: now.toISOString(),
    api_version: 'v1',
    mode: event.mode,
    merchant_id: event.merchantId,
    data: event.data,
  });
  const inserted = await insertEvent(trx, {
    id,
    merchant_id: event.merchantId,
    mode: event.mode,
    type: event.type,
    payload,
    created_at: now,
  });
  if (!inserted) return { id, deliveries: 0, duplicate: true };
  return { id, deliveries: 0, duplicate: false };
}
