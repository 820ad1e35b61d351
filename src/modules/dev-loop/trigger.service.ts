// Triggering an event by hand (API.md section 10): a real event of the merchant's test mode whose data is the
// example of its type made the merchant's own (its store, fresh ids, now; events/event-samples.ts), with the
// caller's fields merged over it, recorded like any event of the platform, so every subscribed test webhook
// gets a delivery. Live mode is refused: a live event is a fact about the business.
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { checkPayload, isEventType, mergeData } from '../events/index.ts';
import { emitEvent, sampleEvent, type Signal } from '../outbox/index.ts';
import { getMerchantEvent } from './events.service.ts';

export interface Trigger {
  type: string;
  /** Merged over the sample, field by field; a field the type's schema does not name is refused. */
  data?: Record<string, unknown> | undefined;
  /** The object the event is about: an earlier event's (`ord_...` of an order.created) continues its story. */
  object?: string | undefined;
}

export async function triggerEvent(ctx: Context, listeners: Signal, audit: AuditContext, input: Trigger) {
  const { type, data: override, object } = input;
  if (audit.mode !== 'test') {
    throw new AppError('forbidden', 'Events can be triggered in test mode only.');
  }
  if (!isEventType(type)) {
    throw new AppError('validation_failed', `type ${type} is not an event of the catalog.`, {
      details: [{ field: 'type', issue: 'is not an event of the catalog' }],
    });
  }
  const sample = await sampleEvent(ctx, ctx.db, audit, type, object);
  const data = override ? mergeData(sample, override) : sample;
  checkPayload(type, data, true);
  // The outbox: the event, its deliveries and the audit entry commit together; the commit wakes the workers.
  const emitted = await ctx.db.transaction().execute(async (trx) => {
    const at = new Date(ctx.clock.now());
    const event = await emitEvent(
      trx,
      { merchantId: audit.merchantId, mode: audit.mode, type, data, requestId: audit.requestId },
      at,
    );
    await writeAudit(trx, audit, {
      action: 'webhook.event_triggered',
      entityType: 'event',
      entityId: event.id,
      fields: {
        event_id: event.id,
        event_type: type,
        deliveries: event.deliveries,
        overridden_fields: Object.keys(override ?? {}),
        ...(object !== undefined ? { object } : {}),
      },
    });
    return event;
  });
  // `svc listen` streams read events themselves: wake them now rather than at their next poll.
  listeners.raise();
  return getMerchantEvent(ctx, audit, emitted.id, ctx.db); // the event it just recorded: the primary
}
