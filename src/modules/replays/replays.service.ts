// Replays by filter (API.md section 12.2): preview, start, progress and cancel. The replay's row is this
// module's, the deliveries it queues the delivery module's; its loop does the queueing in the background, on any
// process.
import type { Context } from '../../context.ts';
import { notFound, invalid, AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { iso } from '../../lib/time.ts';
import { mapPage, type PageInput, type Scope } from '../../lib/scope.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import {
  cancelReplay,
  countReplay,
  findReplay,
  insertReplay,
  listReplays,
  type ReplayRow,
  type ReplaySpec,
} from './replays.repository.ts';
import type { ReplayEventStatus } from './replays.table.ts';
import { isEventType } from '../events/index.ts';
import { findOwnEndpoint, findOwnWebhook } from '../webhooks/index.ts';

export interface ReplayInput {
  since: string;
  until?: string | undefined;
  status?: ReplayEventStatus | undefined;
  event_types?: string[] | undefined;
  store_id?: string | undefined;
}

export function presentReplay(row: ReplayRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    status: row.status,
    filter: {
      since: iso(row.since),
      until: iso(row.until),
      status: row.event_status,
      event_types: row.event_types,
      store_id: row.store_id,
    },
    matched: row.matched,
    queued: row.queued,
    skipped: row.skipped,
    created_at: iso(row.created_at),
    finished_at: iso(row.finished_at),
  };
}

/** The window and the types, checked; `until` defaults to now and never passes it (later events are live). */
function specOf(
  webhook: { id: string; app_id: string | null },
  scope: Scope,
  input: ReplayInput,
  now: Date,
): ReplaySpec {
  const since = new Date(input.since);
  const asked = input.until === undefined ? now : new Date(input.until);
  const until = asked > now ? now : asked;
  if (since >= until)
    throw invalid(input.until === undefined ? 'since' : 'until', 'must leave a window: since before until');
  const unknown = (input.event_types ?? []).findIndex((t) => !isEventType(t));
  if (unknown >= 0) throw invalid(`event_types[${unknown}]`, 'is not an event of the catalog');
  return {
    merchantId: scope.merchantId,
    mode: scope.mode,
    webhookId: webhook.id,
    appWebhook: webhook.app_id !== null,
    eventStatus: input.status ?? 'failed',
    since,
    until,
    eventTypes: input.event_types ? [...new Set(input.event_types)] : null,
    storeId: input.store_id ?? null,
  };
}

export async function previewReplay(
  ctx: Context,
  audit: AuditContext,
  webhookId: string,
  input: ReplayInput,
) {
  const webhook = await findOwnEndpoint(ctx.db, audit, webhookId);
  const spec = specOf(webhook, audit, input, new Date(ctx.clock.now()));
  return { matched: await countReplay(ctx.db, spec) };
}

/** Records a running replay and its audit entry together; the loop (here at once, elsewhere soon) runs it. */
export async function startReplay(
  ctx: Context,
  replayMade: () => void,
  audit: AuditContext,
  webhookId: string,
  input: ReplayInput,
) {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnEndpoint(trx, audit, webhookId);
    if (webhook.status !== 'enabled') throw new AppError('conflict', 'Enable the webhook before replaying.');
    const now = new Date(ctx.clock.now());
    const spec = specOf(webhook, audit, input, now);
    const replay = await insertReplay(trx, newId('rpl', now.getTime()), spec, now);
    const shown = presentReplay(replay);
    await writeAudit(trx, audit, {
      action: 'webhook.replayed',
      entityType: 'webhook',
      entityId: webhook.id,
      fields: { replay_id: replay.id, ...shown.filter, matched: replay.matched },
    });
    return replay;
  });
  replayMade();
  return presentReplay(row);
}

export async function listWebhookReplays(
  ctx: Context,
  scope: Scope,
  input: PageInput & { webhookId: string },
) {
  const { webhookId, ...page } = input;
  const webhook = await findOwnWebhook(ctx.db, scope, webhookId);
  return mapPage(await listReplays(ctx.db, webhook.id, page), presentReplay);
}

export async function getReplay(ctx: Context, scope: Scope, webhookId: string, id: string) {
  const webhook = await findOwnWebhook(ctx.db, scope, webhookId);
  const row = await findReplay(ctx.db, webhook.id, id);
  if (!row) throw notFound('replay');
  return presentReplay(row);
}

/** Nothing more is queued; what was stays queued. A replay already ended is answered as it is. */
export async function stopReplay(ctx: Context, audit: AuditContext, webhookId: string, id: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await findOwnWebhook(trx, audit, webhookId);
    const before = await findReplay(trx, webhook.id, id);
    if (!before) throw notFound('replay');
    const row = (await cancelReplay(trx, webhook.id, id, new Date(ctx.clock.now())))!;
    if (before.status === 'running' && row.status === 'cancelled') {
      await writeAudit(trx, audit, {
        action: 'webhook.replay_cancelled',
        entityType: 'webhook',
        entityId: webhook.id,
        fields: { replay_id: row.id, queued: row.queued },
      });
    }
    return presentReplay(row);
  });
}
