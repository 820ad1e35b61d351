// The account's events as merchants see them (API.md section 10): each with its deliveries, and resending one
// to a chosen endpoint. The events are the outbox's, the deliveries the delivery module's; a resend is a new
// delivery, written by that module's function in this use case's transaction.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import type { Mode } from '../../lib/credentials.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import * as repo from '../delivery/index.ts';
import {
  DELIVERY_CHANNEL,
  eventIdsOfRequest,
  findEvent,
  lastSequence,
  listEvents,
  type EventFilter,
  type StoredEvent,
} from '../outbox/index.ts';
import { findOwnEndpoint } from '../webhooks/index.ts';
import { presentDelivery } from './deliveries.presenters.ts';
import { refusal, resendTargets } from './resend-targets.ts';

/**
 * The ordering of a new delivery of `event` to `webhook` made now: for a per_object endpoint, the event's key,
 * placed after the deliveries of every event recorded so far and before those of any later one (migration
 * 0060): a resend is recorded now, so it waits for the pending deliveries of its key recorded before it.
 */
async function orderingOf(trx: Executor, scope: Scope, event: StoredEvent, webhook: { ordering: string }) {
  if (webhook.ordering !== 'per_object') return {};
  const key = (JSON.parse(event.payload) as EventPayload).ordering_key ?? null;
  if (key === null) return {};
  return { ordering_key: key, ordering_seq: 2 * (await lastSequence(trx, scope)) + 1 };
}

/** A new delivery of one of the merchant's events to one of its endpoints, due now. */
export async function resendEvent(ctx: Context, audit: AuditContext, eventId: string, webhookId: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const event = await findEvent(trx, audit, eventId);
    if (!event) throw notFound('event');
    const webhook = await findOwnEndpoint(trx, audit, webhookId);
    // An app webhook hears an event through an installation: a resend goes out for the same one.
    const installation = webhook.app_id ? await repo.installationOf(trx, webhook.id, event.id) : null;
    const why = refusal(event.type, webhook, installation !== null);
    if (why !== null) throw new AppError('conflict', why);
    const ordering = await orderingOf(trx, audit, event, webhook);
    const now = ctx.clock.now();
    const delivery = await repo.insertDelivery(
      trx,
      {
        id: newId('dlv', now),
        webhook_id: webhook.id,
        merchant_id: audit.merchantId,
        mode: audit.mode,
        event_id: event.id,
        event_type: event.type,
        ...installation,
        next_attempt_at: new Date(now),
        ...ordering,
      },
      new Date(now),
    );
    await writeAudit(trx, audit, {
      action: 'webhook.event_resent',
      entityType: 'webhook_delivery',
      entityId: delivery.id,
      fields: { webhook_id: webhook.id, event_id: event.id, event_type: event.type },
    });
    await notify(trx, DELIVERY_CHANNEL, '');
    return presentDelivery({ ...delivery, app_id: webhook.app_id });
  });
}

/** The endpoints a resend of the event may go to (the Resend menu's offers). */
export async function listResendTargets(ctx: Context, scope: Scope, input: { eventId: string }) {
  const event = await findEvent(ctx.db, scope, input.eventId);
  if (!event) throw notFound('event');
  const items = await resendTargets(ctx.db, scope, event);
  return { items, count: items.length, has_more: false, next_cursor: null };
}

/** The body every delivery of an event sends (API.md sections 7 and 11.4). */
interface EventPayload {
  id: string;
  type: string;
  timestamp: string;
  api_version: string;
  mode: Mode;
  merchant_id: string;
  /** Absent from the bodies of events recorded before sequences (migration 0060). */
  ordering_key?: string | null;
  data: unknown;
}

/**
 * An event as it was delivered (the exact payload), with when it was recorded; its sequence from the row, which
 * events recorded before sequences have too.
 */
function presentEvent(e: StoredEvent) {
  const body = JSON.parse(e.payload) as EventPayload;
  return {
    ...body,
    ordering_key: body.ordering_key ?? null,
    sequence: e.sequence,
    created_at: iso(e.created_at),
  };
}

export interface EventsInput extends PageInput, EventFilter {}

export async function listMerchantEvents(ctx: Context, scope: Scope, input: EventsInput) {
  const { limit, startingAfter, ...filter } = input;
  const db = ctx.reads.readsFor(scope.merchantId); // a read that tolerates lag (API.md 12.1)
  const events = await listEvents(db, scope, filter, { limit, startingAfter });
  const byEvent = Map.groupBy(
    await repo.deliveriesOfEvents(
      db,
      scope,
      events.items.map((e) => e.id),
    ),
    (d) => d.event_id,
  );
  return mapPage(events, (e) => ({
    ...presentEvent(e),
    deliveries: (byEvent.get(e.id) ?? []).map((d) => ({
      id: d.id,
      webhook_id: d.webhook_id,
      status: d.status,
      attempt_count: d.attempt_count,
    })),
  }));
}

/** `db`: a replica's for the route (API.md 12.1); the primary's for a use case that reads what it just wrote. */
export async function getMerchantEvent(
  ctx: Context,
  audit: AuditContext,
  eventId: string,
  db: Executor = ctx.reads.readsFor(audit.merchantId),
) {
  const event = await findEvent(db, audit, eventId);
  if (!event) throw notFound('event');
  const deliveries = await repo.deliveriesOfEvents(db, audit, [event.id]);
  return { ...presentEvent(event), deliveries: deliveries.map(presentDelivery) };
}

/** The deliveries a request caused: those of the events recorded during it (the request log's detail). */
export async function deliveriesOfRequest(
  ctx: Context,
  scope: Scope,
  requestId: string,
  window: { from: Date; to: Date },
) {
  const db = ctx.reads.readsFor(scope.merchantId); // part of the request log's detail: tolerates lag
  const eventIds = await eventIdsOfRequest(db, scope, requestId, window);
  return (await repo.deliveriesOfEvents(db, scope, eventIds)).map(presentDelivery);
}
