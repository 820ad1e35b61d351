// Triggering an event by hand (API.md section 10): a real event of the merchant's test mode, with the example
// data of its type and the caller's fields merged over it, recorded like any event of the platform, so every
// subscribed test webhook gets a delivery. Live mode is refused: a live event is a fact about the business.
import type { Context } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { checkPayload, isEventType, mergeData, sampleData } from '../events/index.ts';
import { getMerchantEvent } from './deliveries.service.ts';
import { emitEvent } from './outbox.service.ts';
import type { Signal } from './signal.ts';

export async function triggerEvent(
  ctx: Context,
  listeners: Signal,
  audit: AuditContext,
  type: string,
  override: Record<string, unknown> | undefined,
) {
  if (audit.mode !== 'test') {
    throw new AppError('forbidden', 'Events can be triggered in test mode only.');
  }
  if (!isEventType(type)) {
    throw new AppError('validation_failed', `type ${type} is not an event of the catalog.`, {
      details: [{ field: 'type', issue: 'is not an event of the catalog' }],
    });
  }
  const data = override ? mergeData(sampleData(type), override) : sampleData(type);
  checkPayload(type, data);
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
      },
    });
    return event;
  });
  // `svc listen` streams read events themselves: wake them now rather than at their next poll.
  listeners.raise();
  return getMerchantEvent(ctx, audit, emitted.id);
}
