// Deliveries as merchants see them: list, read with attempts, retry by hand, recover, and the test route. The
// rows are the delivery module's: each change here is its function, called in this use case's transaction.
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { attemptsOfDelivery } from '../attempts/index.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import {
  applyOutcomes,
  countRecoverable,
  deliveryBody,
  leaseMs,
  RECOVER_MAX,
  recoverDeliveries,
  runAttempt,
  type DeliveryStatus,
  type DeliveryTarget,
  type Sending,
} from '../delivery/index.ts';
import * as repo from '../delivery/index.ts';
import { isEventType } from '../events/index.ts';
import { deliveredPayload, DELIVERY_CHANNEL, recordEvent, sampleEvent } from '../outbox/index.ts';
import { countOutcomeChange, findOwnEndpoint, findOwnWebhook } from '../webhooks/index.ts';
import { deliveryOf, presentAttempt } from './deliveries.presenters.ts';

/** The installation a delivery was made for, when its webhook is an app's. */
const targetOf = (
  webhook: { app_id: string | null },
  delivery: { grant_id: string | null; store_id: string | null },
): DeliveryTarget => ({ appId: webhook.app_id, grantId: delivery.grant_id, storeId: delivery.store_id });

export interface DeliveriesInput extends PageInput {
  readonly webhookId: string;
  readonly status?: DeliveryStatus | undefined;
  /** An installing store (an app webhook's deliveries). */
  readonly storeId?: string | undefined;
}

export async function listDeliveries(ctx: Context, scope: Scope, input: DeliveriesInput) {
  const { webhookId, status, storeId, ...page } = input;
  const db = ctx.reads.readsFor(scope.merchantId); // a read that tolerates lag (API.md 12.1)
  const webhook = await findOwnWebhook(db, scope, webhookId);
  return mapPage(await repo.listDeliveries(db, webhook.id, { status, storeId }, page), deliveryOf(webhook));
}

/** `db`: a replica's for the route (API.md 12.1); the primary's for a use case that reads what it just wrote. */
export async function getDelivery(
  ctx: Context,
  audit: AuditContext,
  webhookId: string,
  id: string,
  db: Executor = ctx.reads.readsFor(audit.merchantId),
) {
  const webhook = await findOwnWebhook(db, audit, webhookId);
  const row = await repo.findDelivery(db, webhook.id, id);
  if (!row) throw notFound('delivery');
  const [attempts, stored] = await Promise.all([
    attemptsOfDelivery(db, row.id),
    deliveredPayload(db, row.event_id),
  ]);
  // The exact bytes every attempt sent and signed (null once the event is purged).
  const payload = stored === undefined ? null : deliveryBody(stored, targetOf(webhook, row));
  return { ...deliveryOf(webhook)(row), payload, attempts: attempts.map(presentAttempt) };
}

/** Due at once and the workers woken; a delivery whose attempt is under way right now is left to it. */
export async function retryDelivery(ctx: Context, audit: AuditContext, webhookId: string, id: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnEndpoint(trx, audit, webhookId);
    const row = await repo.findDelivery(trx, webhook.id, id);
    if (!row) throw notFound('delivery');
    if (webhook.status !== 'enabled') throw new AppError('conflict', 'Enable the webhook before retrying.');
    const now = new Date(ctx.clock.now());
    if (row.status === 'pending' && row.locked_until && row.locked_until > now)
      return deliveryOf(webhook)(row);
    // A delivery that had finished gets one more attempt; a pending one keeps its place in the schedule.
    const step = row.status === 'pending' ? row.step : ctx.config.webhookRetrySchedule.length;
    const updated = await repo.requeueDelivery(trx, row.id, step, now);
    // pending again: no longer one of its endpoint's successes (health.success_rate_24h)
    if (row.status === 'succeeded') await countOutcomeChange(trx, row, { attempted: 0, succeeded: -1 });
    await writeAudit(trx, audit, {
      action: 'webhook.delivery_retried',
      entityType: 'webhook_delivery',
      entityId: row.id,
      fields: { webhook_id: webhook.id, event_id: row.event_id, previous_status: row.status },
    });
    await notify(trx, DELIVERY_CHANNEL, '');
    return deliveryOf(webhook)(updated);
  });
}

/**
 * A sample event of the chosen type, to this webhook only, signed like any other and sent now; the answer
 * carries the first attempt. The delivery is leased to this request, so no worker sends it meanwhile, and a
 * failed first attempt is retried by the workers like any other (it never counts toward disabling).
 */
export async function testWebhook(
  ctx: Context,
  sending: Sending,
  audit: AuditContext,
  webhookId: string,
  event?: string,
) {
  const holder = `test:${randomBytes(6).toString('hex')}`;
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnEndpoint(trx, audit, webhookId);
    const type = event ?? webhook.events[0]!;
    if (!isEventType(type)) {
      throw new AppError('validation_failed', `event ${type} is not an event of the catalog.`, {
        details: [{ field: 'event', issue: 'is not an event of the catalog' }],
      });
    }
    const now = ctx.clock.now();
    const ev = await recordEvent(
      trx,
      {
        merchantId: audit.merchantId,
        mode: audit.mode,
        type,
        data: await sampleEvent(ctx, trx, audit, type),
        requestId: audit.requestId,
      },
      new Date(now),
    );
    const leaseEnd = new Date(now + leaseMs(ctx));
    const delivery = await repo.insertDelivery(
      trx,
      {
        id: newId('dlv', now),
        webhook_id: webhook.id,
        merchant_id: audit.merchantId,
        mode: audit.mode,
        event_id: ev.id,
        event_type: type,
        test: true,
        next_attempt_at: leaseEnd,
        locked_until: leaseEnd,
        locked_by: holder,
      },
      new Date(now),
    );
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
      app_id: webhook.app_id,
      attempt_count: 0,
      step: 0,
      test: true,
      // A sample from no installation: an app webhook's test names the app, with grant_id and store_id null.
      payload: deliveryBody(ev.payload, targetOf(webhook, { grant_id: null, store_id: null })),
      url: webhook.url,
      secret_sealed: webhook.secret_sealed,
      previous_secret_sealed: webhook.previous_secret_sealed,
      previous_secret_expires_at: webhook.previous_secret_expires_at,
      deliverable: true,
      // an explicit request of the merchant, sent at once: it takes no slot of the endpoint's pace
      start_at: null,
      limited: false,
      ordered: false,
    };
  });
  const outcome = await runAttempt(ctx, sending, claimed);
  await applyOutcomes(ctx, holder, [outcome]);
  return getDelivery(ctx, audit, webhookId, claimed.id, ctx.db); // the attempt it just made: the primary
}

/** How many failed deliveries of this endpoint since `since` a recovery would enqueue (up to the bound). */
export async function previewRecovery(ctx: Context, audit: AuditContext, webhookId: string, since: Date) {
  const webhook = await findOwnWebhook(ctx.db, audit, webhookId);
  const n = await countRecoverable(ctx.db, webhook.id, since, new Date(ctx.clock.now()));
  return { count: Math.min(n, RECOVER_MAX), has_more: n > RECOVER_MAX };
}

/** Every failed delivery of the endpoint since `since` is due again now, oldest first (RECOVER_MAX a call). */
export async function recoverFailed(ctx: Context, audit: AuditContext, webhookId: string, since: Date) {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnEndpoint(trx, audit, webhookId);
    if (webhook.status !== 'enabled') throw new AppError('conflict', 'Enable the webhook before recovering.');
    const now = new Date(ctx.clock.now());
    const count = await recoverDeliveries(
      trx,
      webhook.id,
      since,
      ctx.config.webhookRetrySchedule.length,
      now,
    );
    const left = count === RECOVER_MAX ? await countRecoverable(trx, webhook.id, since, now) : 0;
    await writeAudit(trx, audit, {
      action: 'webhook.recovered',
      entityType: 'webhook',
      entityId: webhook.id,
      fields: { since: since.toISOString(), count },
    });
    if (count > 0) await notify(trx, DELIVERY_CHANNEL, '');
    return { count, has_more: left > 0 };
  });
}
