// Deliveries as merchants see them: list, read with attempts, retry by hand, and the test route.
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.ts';
import { notify } from '../../db/bus.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { DELIVERY_CHANNEL, isEventType, recordEvent, sampleData } from '../events/index.ts';
import * as repo from './deliveries.repository.ts';
import { requestAgent } from './delivery/agents.ts';
import { applyOutcomes, runAttempt } from './delivery/attempt.ts';
import { leaseMs } from './delivery/worker.ts';
import { presentAttempt, presentDelivery } from './webhooks.presenters.ts';
import { findOwnWebhook } from './webhooks.service.ts';
import type { DeliveryStatus } from './webhooks.table.ts';

export async function listDeliveries(
  ctx: Context,
  audit: AuditContext,
  webhookId: string,
  f: { limit: number; startingAfter?: string | undefined; status?: DeliveryStatus | undefined },
) {
  const webhook = await findOwnWebhook(ctx.db, audit, webhookId);
  const { rows, count } = await repo.listDeliveries(ctx.db, webhook.id, f);
  return { rows: rows.map(presentDelivery), count };
}

export async function getDelivery(ctx: Context, audit: AuditContext, webhookId: string, id: string) {
  const webhook = await findOwnWebhook(ctx.db, audit, webhookId);
  const row = await repo.findDelivery(ctx.db, webhook.id, id);
  if (!row) throw notFound('delivery');
  const attempts = await repo.listAttempts(ctx.db, row.id);
  return { ...presentDelivery(row), attempts: attempts.map(presentAttempt) };
}

/** Due at once and the workers woken; a delivery whose attempt is under way right now is left to it. */
export async function retryDelivery(ctx: Context, audit: AuditContext, webhookId: string, id: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnWebhook(trx, audit, webhookId);
    const row = await repo.findDelivery(trx, webhook.id, id);
    if (!row) throw notFound('delivery');
    if (webhook.status !== 'enabled') throw new AppError('conflict', 'Enable the webhook before retrying.');
    const now = new Date();
    if (row.status === 'pending' && row.locked_until && row.locked_until > now) return presentDelivery(row);
    // A delivery that had finished gets one more attempt; a pending one keeps its place in the schedule.
    const step = row.status === 'pending' ? row.step : ctx.config.webhookRetrySchedule.length;
    const updated = await repo.requeueDelivery(trx, row.id, step);
    await writeAudit(trx, audit, {
      action: 'webhook.delivery_retried',
      entityType: 'webhook_delivery',
      entityId: row.id,
      fields: { webhook_id: webhook.id, event_id: row.event_id, previous_status: row.status },
    });
    await notify(trx, DELIVERY_CHANNEL, '');
    return presentDelivery(updated);
  });
}

/**
 * A sample event of the chosen type, to this webhook only, signed like any other and sent now; the answer
 * carries the first attempt. The delivery is leased to this request, so no worker sends it meanwhile, and a
 * failed first attempt is retried by the workers like any other (it never counts toward disabling).
 */
export async function testWebhook(ctx: Context, audit: AuditContext, webhookId: string, event?: string) {
  const holder = `test:${randomBytes(6).toString('hex')}`;
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnWebhook(trx, audit, webhookId);
    const type = event ?? webhook.events[0]!;
    if (!isEventType(type)) {
      throw new AppError('validation_failed', `event ${type} is not an event of the catalog.`, {
        details: [{ field: 'event', issue: 'is not an event of the catalog' }],
      });
    }
    const ev = await recordEvent(trx, {
      merchantId: audit.merchantId,
      mode: audit.mode,
      type,
      data: sampleData(type, audit.merchantId),
    });
    const leaseEnd = new Date(Date.now() + leaseMs(ctx));
    const delivery = await repo.insertDelivery(trx, {
      id: newId('dlv'),
      webhook_id: webhook.id,
      merchant_id: audit.merchantId,
      mode: audit.mode,
      event_id: ev.id,
      event_type: type,
      test: true,
      next_attempt_at: leaseEnd,
      locked_until: leaseEnd,
      locked_by: holder,
    });
    await writeAudit(trx, audit, {
      action: 'webhook.tested',
      entityType: 'webhook',
      entityId: webhook.id,
      fields: { delivery_id: delivery.id, event_id: ev.id, event_type: type },
    });
    return {
      id: delivery.id,
      webhook_id: webhook.id,
      merchant_id: audit.merchantId,
      mode: audit.mode,
      event_id: ev.id,
      attempt_count: 0,
      step: 0,
      test: true,
      payload: ev.payload,
      url: webhook.url,
      secret_sealed: webhook.secret_sealed,
      previous_secret_sealed: webhook.previous_secret_sealed,
      previous_secret_expires_at: webhook.previous_secret_expires_at,
      deliverable: true,
    };
  });
  const outcome = await runAttempt(ctx, requestAgent(ctx), claimed);
  await applyOutcomes(ctx, holder, [outcome]);
  return getDelivery(ctx, audit, webhookId, claimed.id);
}
