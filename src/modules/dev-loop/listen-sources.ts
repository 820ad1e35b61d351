// Where a `svc listen` stream's events come from: a merchant's stream reads the events table (the outbox's), an
// app's stream the deliveries the fan-out made for its listener (the delivery module's).
import type { Context } from '../../context.ts';
import type { Mode } from '../../lib/credentials.ts';
import { deliveryBody, listenerDeliveriesAfter } from '../delivery/index.ts';
import { eventsAfter } from '../outbox/index.ts';

/** One event a stream may send: its cursor (an event id, or a delivery id for an app's stream). */
export interface Readable {
  cursor: string;
  eventId: string;
  type: string;
  createdAt: Date;
  body: string;
  /** An app stream's delivery, made by the fan-out; a merchant stream records its own when it sends. */
  deliveryId?: string;
}

/** Where a stream's events come from, after a cursor of the kind given. */
export interface Source {
  kind: 'evt' | 'dlv';
  read(afterId: string, since: Date, limit: number): Promise<Readable[]>;
}

/** A merchant's stream: its events, read from the events table. */
export function merchantSource(
  ctx: Context,
  scope: { merchantId: string; mode: Mode },
  types: string[] | undefined,
): Source {
  return {
    kind: 'evt',
    read: async (afterId, since, limit) =>
      (await eventsAfter(ctx.db, { ...scope, afterId, since, types, limit })).map((e) => ({
        cursor: e.id,
        eventId: e.id,
        type: e.type,
        createdAt: e.created_at,
        body: e.payload,
      })),
  };
}

/** An app's stream: the deliveries the fan-out made for its listener, as the app's endpoints get them. */
export function appSource(ctx: Context, appId: string, webhookId: string): Source {
  return {
    kind: 'dlv',
    read: async (afterId, since, limit) =>
      (await listenerDeliveriesAfter(ctx.db, webhookId, afterId, since, limit)).map((d) => ({
        cursor: d.id,
        eventId: d.event_id,
        type: d.event_type,
        createdAt: d.created_at,
        body: deliveryBody(d.payload, { appId, grantId: d.grant_id, storeId: d.store_id }),
        deliveryId: d.id,
      })),
  };
}
