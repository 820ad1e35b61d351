// `svc listen` (API.md section 10): a merchant's test-mode events, streamed to the CLI already signed, with
// the stream itself a temporary endpoint (a webhook row of kind `listener`) whose deliveries are recorded.
// The stream reads the events table itself rather than taking part in the fan-out, so real endpoints never
// wait for a listener, and a listener never changes what ingestion costs.
import { createHmac } from 'node:crypto';
import type { Context } from '../../context.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import { idFloor, newId } from '../../lib/ids.ts';
import { encryptSecret } from '../../lib/secrets.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { isEventType } from '../events/index.ts';
import { eventsAfter, findEvent } from './events.repository.ts';
import * as repo from './listen.repository.ts';
import { insertWebhook } from './webhooks.repository.ts';
import { presentDelivery } from './webhooks.presenters.ts';
import { signedHeaders, signingKey, type SignedHeaders } from './signing.ts';

/** Replay after a reconnect reaches back this far, and no further. */
export const REPLAY_MS = 3_600_000;
// Ids are made when an event is built, before its batch commits, so an event may commit a moment after
// one with a later id was already read. The stream keeps reading this far behind the newest event it sent,
// skipping what it sent already; 2 s is ten times the longest ingestion batch seen here under load.
const SETTLE_MS = 2000;
const PAGE = 200;

/**
 * The listener's signing secret: derived from the merchant session, so every stream of one `svc login`
 * (reconnects, a second terminal, `--print-secret`) signs with the same secret, and the local receiver
 * keeps one configured. Another session, or a signed-out one, never signs with it.
 */
export function listenerSecret(masterKey: Buffer, sessionId: string): string {
  return 'whsec_' + createHmac('sha256', masterKey).update(`svc-listen:${sessionId}`).digest('base64');
}

export interface Frame {
  eventId: string;
  deliveryId: string;
  type: string;
  headers: SignedHeaders;
  body: string;
}

export interface ListenerSession {
  webhookId: string;
  secret: string;
  /** The events recorded since the last call (or replayed), each with its delivery recorded and signed. */
  next(): Promise<Frame[]>;
  touch(): Promise<void>;
  close(): Promise<void>;
}

export function parseEventFilter(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const types = [...new Set(raw.split(',').map((t) => t.trim()))];
  const unknown = types.find((t) => !isEventType(t));
  if (unknown !== undefined) throw invalid('events', `${unknown} is not an event of the catalog`);
  return types;
}

async function closeStale(ctx: Context): Promise<void> {
  const now = new Date(ctx.clock.now());
  const stale = await repo.staleListeners(ctx.db, now);
  await repo.closeListenerRows(ctx.db, stale, 'The listening process stopped.', now);
}

export async function openListener(
  ctx: Context,
  audit: AuditContext,
  input: {
    sessionId: string;
    types: string[] | undefined;
    lastEventId: string | undefined;
    forwardTo?: string;
  },
): Promise<ListenerSession> {
  if (audit.mode !== 'test')
    throw new AppError('forbidden', 'Listening is for test mode only: live events go to live endpoints.');
  const secret = listenerSecret(ctx.config.masterKey, input.sessionId);
  const key = signingKey(secret);
  const scope = { merchantId: audit.merchantId, mode: audit.mode };
  const opened = new Date(ctx.clock.now());

  // Where the stream starts: now, or on a reconnect the settle window before the last event the client saw
  // (within the hour), since an event with an earlier id may have committed after it and never reached the
  // client. Events of that window the client already has come again; it forwards each event id once and
  // reports the copy as a duplicate. The window never reaches before the session began: an event recorded
  // before the client started listening was not missed, and is not sent.
  let after = idFloor('evt', opened);
  let sessionStart = opened;
  const sent = new Map<string, number>(); // event id -> created_at ms, within the settle window
  if (input.lastEventId !== undefined && /^evt_[A-Za-z0-9_-]{1,64}$/.test(input.lastEventId)) {
    const last = await findEvent(ctx.db, scope, input.lastEventId);
    if (last) {
      sessionStart = (await repo.sessionStartOf(ctx.db, scope, last.id)) ?? last.created_at;
      const from = Math.max(
        last.created_at.getTime() - SETTLE_MS,
        sessionStart.getTime(),
        opened.getTime() - REPLAY_MS,
      );
      after = idFloor('evt', new Date(from));
      sent.set(last.id, last.created_at.getTime());
    }
  }

  await closeStale(ctx);
  const webhookId = newId('wh', opened.getTime());
  const description = input.types ? `svc listen: ${input.types.join(', ')}` : 'svc listen: every event';
  await ctx.db.transaction().execute(async (trx) => {
    await insertWebhook(trx, {
      id: webhookId,
      merchant_id: audit.merchantId,
      mode: 'test',
      kind: 'listener',
      url: input.forwardTo ?? 'svc-listen:',
      // Empty: the fan-out never makes deliveries for a listener (migration 0016).
      events: [],
      description,
      disabled_reason: null,
      secret_sealed: encryptSecret(ctx.config.masterKey, secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      failing_since: null,
      listen_from: sessionStart,
      deleted_at: null,
      created_at: opened,
      updated_at: opened,
    });
    await writeAudit(trx, audit, {
      action: 'webhook.listener_opened',
      entityType: 'webhook',
      entityId: webhookId,
      fields: { events: input.types ?? null, last_event_id: input.lastEventId ?? null },
    });
  });

  let closed = false;

  async function next(): Promise<Frame[]> {
    const frames: Frame[] = [];
    let cursor = after;
    for (;;) {
      const now = ctx.clock.now();
      const since = new Date(now - REPLAY_MS);
      const rows = await eventsAfter(ctx.db, {
        ...scope,
        afterId: cursor,
        since,
        types: input.types,
        limit: PAGE,
      });
      const fresh = rows.filter((r) => !sent.has(r.id));
      if (fresh.length > 0) {
        const deliveries = fresh.map((e) => ({
          id: newId('dlv', now),
          webhook_id: webhookId,
          merchant_id: audit.merchantId,
          mode: 'test' as const,
          event_id: e.id,
          event_type: e.type,
        }));
        await repo.insertListenerDeliveries(ctx.db, deliveries, new Date(now));
        fresh.forEach((e, i) => {
          sent.set(e.id, e.created_at.getTime());
          frames.push({
            eventId: e.id,
            deliveryId: deliveries[i]!.id,
            type: e.type,
            headers: signedHeaders([key], e.id, e.payload, new Date(now)),
            body: e.payload,
          });
        });
      }
      if (rows.length < PAGE) break;
      cursor = rows[rows.length - 1]!.id;
    }
    // Read on from just behind the newest event sent; forget what is now behind the read position.
    const newest = Math.max(...sent.values(), 0);
    if (newest > 0) {
      const behind = idFloor('evt', new Date(newest - SETTLE_MS));
      if (behind > after) after = behind;
    }
    for (const id of sent.keys()) if (id <= after) sent.delete(id);
    return frames;
  }

  return {
    webhookId,
    secret,
    next,
    touch: async () => {
      await repo.touchListener(ctx.db, webhookId, new Date(ctx.clock.now()));
      await closeStale(ctx);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await ctx.db.transaction().execute(async (trx) => {
        await repo.closeListenerRows(
          trx,
          [webhookId],
          'The listen stream closed.',
          new Date(ctx.clock.now()),
        );
        await writeAudit(trx, audit, {
          action: 'webhook.listener_closed',
          entityType: 'webhook',
          entityId: webhookId,
        });
      });
    },
  };
}

const BODY_KEPT = 16 * 1024;

/** The answer the CLI got from the local endpoint, recorded as the delivery's attempt. */
export async function reportListenerDelivery(
  ctx: Context,
  audit: AuditContext,
  webhookId: string,
  deliveryId: string,
  input: {
    duplicate?: boolean | undefined;
    status: number | null;
    duration_ms: number;
    error?: string | undefined;
    response_body?: string | undefined;
  },
) {
  const row = await repo.recordListenerOutcome(
    ctx.db,
    { merchantId: audit.merchantId, mode: audit.mode },
    webhookId,
    deliveryId,
    {
      duplicate: input.duplicate === true,
      status: input.status,
      durationMs: input.duration_ms,
      error: input.error ?? (input.status === null ? 'The local endpoint did not answer.' : null),
      responseBody: input.response_body?.slice(0, BODY_KEPT) ?? null,
      requestHeaders: null,
    },
    new Date(ctx.clock.now()),
  );
  if (!row) throw new AppError('not_found', 'No delivery of a listener awaits a report under this id.');
  return presentDelivery(row);
}
