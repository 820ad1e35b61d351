// `svc listen` (API.md section 10): a merchant's test-mode events, streamed to the CLI already signed, with
// the stream itself a temporary endpoint (a webhook row of kind `listener`) whose deliveries are recorded.
// A merchant's stream reads the events table itself rather than taking part in the fan-out, so real endpoints
// never wait for a listener, and a listener never changes what ingestion costs. An app's stream (`svc listen
// --app`, API.md section 11.1) is an app webhook of kind `listener`: the fan-out decides what it receives
// exactly as for the app's endpoints (installations, scopes, lifecycle), records its deliveries with no due
// time, and the stream sends those, with the bodies the app's endpoints get.
// The listener row is the webhooks module's, its deliveries the delivery module's.
import { createHmac } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { Mode } from '../../lib/credentials.ts';
import { idFloor, newId } from '../../lib/ids.ts';
import { encryptSecret } from '../../lib/secrets.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import * as delivery from '../delivery/index.ts';
import { EVENT_CATALOG, isEventType } from '../events/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import { eventsAfter, findEvent } from '../outbox/index.ts';
import * as webhooks from '../webhooks/index.ts';
import {
  checkOwnApp,
  insertWebhook,
  signedHeaders,
  signingKey,
  type SignedHeaders,
} from '../webhooks/index.ts';
import { presentDelivery } from './deliveries.presenters.ts';

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

/** Closes the listeners (webhook rows) and cancels what their streams sent unanswered (their deliveries). */
async function closeListenerRows(db: Executor, ids: string[], reason: string, now: Date): Promise<void> {
  await webhooks.closeListeners(db, ids, reason, now);
  await delivery.cancelListenerDeliveries(db, ids, reason, now);
}

async function closeStale(ctx: Context): Promise<void> {
  const now = new Date(ctx.clock.now());
  const stale = await webhooks.staleListeners(ctx.db, now);
  await closeListenerRows(ctx.db, stale, 'The listening process stopped.', now);
}

/** One event a stream may send: its cursor (an event id, or a delivery id for an app's stream). */
interface Readable {
  cursor: string;
  eventId: string;
  type: string;
  createdAt: Date;
  body: string;
  /** An app stream's delivery, made by the fan-out; a merchant stream records its own when it sends. */
  deliveryId?: string;
}

/** Where a stream's events come from, after a cursor of the kind given. */
interface Source {
  kind: 'evt' | 'dlv';
  read(afterId: string, since: Date, limit: number): Promise<Readable[]>;
}

/** A merchant's stream: its events, read from the events table. */
function merchantSource(
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
function appSource(ctx: Context, appId: string, webhookId: string): Source {
  return {
    kind: 'dlv',
    read: async (afterId, since, limit) =>
      (await delivery.listenerDeliveriesAfter(ctx.db, webhookId, afterId, since, limit)).map((d) => ({
        cursor: d.id,
        eventId: d.event_id,
        type: d.event_type,
        createdAt: d.created_at,
        body: delivery.deliveryBody(d.payload, { appId, grantId: d.grant_id, storeId: d.store_id }),
        deliveryId: d.id,
      })),
  };
}

export async function openListener(
  ctx: Context,
  apps: AppsCache,
  audit: AuditContext,
  input: {
    sessionId: string;
    types: string[] | undefined;
    lastEventId: string | undefined;
    forwardTo?: string;
    /** `svc listen --app`: the app's events from its test installations, rather than the account's. */
    appId?: string | undefined;
  },
): Promise<ListenerSession> {
  if (audit.mode !== 'test')
    throw new AppError('forbidden', 'Listening is for test mode only: live events go to live endpoints.');
  const appId = input.appId === undefined ? null : await checkOwnApp(ctx, apps, audit, input.appId);
  const secret = listenerSecret(ctx.config.masterKey, input.sessionId);
  const key = signingKey(secret);
  const scope = { merchantId: audit.merchantId, mode: audit.mode };
  const opened = new Date(ctx.clock.now());

  // Where the stream starts: now, or on a reconnect the settle window before the last event the client saw
  // (within the hour), since an event with an earlier id may have committed after it and never reached the
  // client. Events of that window the client already has come again; it forwards each event id once and
  // reports the copy as a duplicate. The window never reaches before the session began: an event recorded
  // before the client started listening was not missed, and is not sent.
  // An app's stream starts now: what the fan-out made for an earlier stream was that stream's to send.
  const webhookId = newId('wh', opened.getTime());
  const source = appId ? appSource(ctx, appId, webhookId) : merchantSource(ctx, scope, input.types);
  let after = idFloor(source.kind, opened);
  let sessionStart = opened;
  const sent = new Map<string, number>(); // cursor -> created_at ms, within the settle window
  const lastEventId = appId === null ? input.lastEventId : undefined;
  if (lastEventId !== undefined && /^evt_[A-Za-z0-9_-]{1,64}$/.test(lastEventId)) {
    const last = await findEvent(ctx.db, scope, lastEventId);
    if (last) {
      sessionStart = (await delivery.sessionStartOf(ctx.db, scope, last.id)) ?? last.created_at;
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
  const description = input.types ? `svc listen: ${input.types.join(', ')}` : 'svc listen: every event';
  await ctx.db.transaction().execute(async (trx) => {
    await insertWebhook(trx, {
      id: webhookId,
      merchant_id: audit.merchantId,
      mode: 'test',
      kind: 'listener',
      url: input.forwardTo ?? 'svc-listen:',
      // A merchant's: empty, the fan-out never makes deliveries for it (migration 0016). An app's: what it
      // listens to, which the fan-out delivers to it as to the app's endpoints (migration 0092).
      events: appId ? (input.types ?? EVENT_CATALOG.map((e) => e.id)) : [],
      app_id: appId,
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
      fields: {
        events: input.types ?? null,
        last_event_id: input.lastEventId ?? null,
        ...(appId ? { app_id: appId } : {}),
      },
    });
  });

  let closed = false;

  async function next(): Promise<Frame[]> {
    const frames: Frame[] = [];
    let cursor = after;
    for (;;) {
      const nowMs = ctx.clock.now();
      const rows = await source.read(cursor, new Date(nowMs - REPLAY_MS), PAGE);
      const fresh = rows.filter((r) => !sent.has(r.cursor));
      if (fresh.length > 0) {
        // A merchant's stream records a delivery per event it sends; an app's has them from the fan-out.
        const made = fresh
          .filter((e) => e.deliveryId === undefined)
          .map((e) => ({
            id: newId('dlv', nowMs),
            webhook_id: webhookId,
            merchant_id: audit.merchantId,
            mode: 'test' as const,
            event_id: e.eventId,
            event_type: e.type,
          }));
        const now = new Date(nowMs);
        await delivery.insertListenerDeliveries(ctx.db, made, now);
        const ids = new Map(made.map((d) => [d.event_id, d.id]));
        for (const e of fresh) {
          sent.set(e.cursor, e.createdAt.getTime());
          frames.push({
            eventId: e.eventId,
            deliveryId: e.deliveryId ?? ids.get(e.eventId)!,
            type: e.type,
            headers: signedHeaders([key], e.eventId, e.body, now),
            body: e.body,
          });
        }
      }
      if (rows.length < PAGE) break;
      cursor = rows[rows.length - 1]!.cursor;
    }
    // Read on from just behind the newest event sent; forget what is now behind the read position.
    const newest = Math.max(...sent.values(), 0);
    if (newest > 0) {
      const behind = idFloor(source.kind, new Date(newest - SETTLE_MS));
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
      await webhooks.touchListener(ctx.db, webhookId, new Date(ctx.clock.now()));
      await closeStale(ctx);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await ctx.db.transaction().execute(async (trx) => {
        await closeListenerRows(trx, [webhookId], 'The listen stream closed.', new Date(ctx.clock.now()));
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
  const duplicate = input.duplicate === true;
  const error = input.error ?? (input.status === null ? 'The local endpoint did not answer.' : null);
  const now = new Date(ctx.clock.now());
  const row = await delivery.recordListenerOutcome(
    ctx.db,
    { merchantId: audit.merchantId, mode: audit.mode },
    webhookId,
    deliveryId,
    {
      duplicate,
      status: input.status,
      durationMs: input.duration_ms,
      error,
      responseBody: input.response_body?.slice(0, BODY_KEPT) ?? null,
      requestHeaders: null,
    },
    now,
  );
  // the listener shows its last attempt, as an endpoint does
  if (row && !duplicate)
    await webhooks.noteListenerAttempt(ctx.db, webhookId, { status: input.status, error }, now);
  if (!row) throw new AppError('not_found', 'No delivery of a listener awaits a report under this id.');
  return presentDelivery(row);
}
