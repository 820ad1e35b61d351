// `svc listen` (API.md section 10): a merchant's test-mode events, streamed to the CLI already signed, with
// the stream itself a temporary endpoint (a webhook row of kind `listener`) whose deliveries are recorded.
// A merchant's stream reads the events table itself rather than taking part in the fan-out, so real endpoints
// never wait for a listener, and a listener never changes what ingestion costs. An app's stream (`svc listen
// --app`, API.md section 11.1) is an app webhook of kind `listener`: the fan-out decides what it receives
// exactly as for the app's endpoints (installations, scopes, lifecycle), records its deliveries with no due
// time, and the stream sends those, with the bodies the app's endpoints get.
// The stream is a `Listener`: opened by `openListener` (the listener row and its audit entry), then read with
// `next` until `close`. The listener row is the webhooks module's, its deliveries the delivery module's.
import { createHmac } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import type { Mode } from '../../lib/credentials.ts';
import { idFloor, newId } from '../../lib/ids.ts';
import { encryptSecret } from '../../lib/secrets.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import {
  cancelListenerDeliveries,
  insertListenerDeliveries,
  recordListenerOutcome,
  sessionStartOf,
} from '../delivery/index.ts';
import { EVENT_CATALOG, isEventType } from '../events/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import { findEvent } from '../outbox/index.ts';
import {
  checkOwnApp,
  closeListeners,
  countOutcomeChange,
  insertWebhook,
  noteListenerAttempt,
  signedHeaders,
  signingKey,
  staleListeners,
  touchListener,
  type SignedHeaders,
} from '../webhooks/index.ts';
import { presentDelivery } from './deliveries.presenters.ts';
import { appSource, merchantSource, type Readable, type Source } from './listen-sources.ts';

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

export function parseEventFilter(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const types = [...new Set(raw.split(',').map((t) => t.trim()))];
  const unknown = types.find((t) => !isEventType(t));
  if (unknown !== undefined) throw invalid('events', `${unknown} is not an event of the catalog`);
  return types;
}

/** Closes the listeners (webhook rows) and cancels what their streams sent unanswered (their deliveries). */
async function closeListenerRows(db: Executor, ids: string[], reason: string, now: Date): Promise<void> {
  await closeListeners(db, ids, reason, now);
  await cancelListenerDeliveries(db, ids, reason, now);
}

async function closeStale(ctx: Context): Promise<void> {
  const now = new Date(ctx.clock.now());
  const stale = await staleListeners(ctx.db, now);
  await closeListenerRows(ctx.db, stale, 'The listening process stopped.', now);
}

export interface ListenInput {
  sessionId: string;
  types: string[] | undefined;
  lastEventId: string | undefined;
  forwardTo?: string;
  /** `svc listen --app`: the app's events from its test installations, rather than the account's. */
  appId?: string | undefined;
}

/** Where a stream starts reading, and what it counts as sent already (a reconnect's last event). */
interface Start {
  after: string;
  sessionStart: Date;
  sent: Map<string, number>;
}

/**
 * Where the stream starts: now, or on a reconnect the settle window before the last event the client saw
 * (within the hour), since an event with an earlier id may have committed after it and never reached the
 * client. Events of that window the client already has come again; it forwards each event id once and
 * reports the copy as a duplicate. The window never reaches before the session began: an event recorded
 * before the client started listening was not missed, and is not sent.
 * An app's stream starts now: what the fan-out made for an earlier stream was that stream's to send.
 */
async function startOf(
  ctx: Context,
  scope: { merchantId: string; mode: Mode },
  kind: Source['kind'],
  opened: Date,
  lastEventId: string | undefined,
): Promise<Start> {
  let after = idFloor(kind, opened);
  let sessionStart = opened;
  const sent = new Map<string, number>(); // cursor -> created_at ms, within the settle window
  if (lastEventId !== undefined && /^evt_[A-Za-z0-9_-]{1,64}$/.test(lastEventId)) {
    const last = await findEvent(ctx.db, scope, lastEventId);
    if (last) {
      sessionStart = (await sessionStartOf(ctx.db, scope, last.id)) ?? last.created_at;
      const from = Math.max(
        last.created_at.getTime() - SETTLE_MS,
        sessionStart.getTime(),
        opened.getTime() - REPLAY_MS,
      );
      after = idFloor('evt', new Date(from));
      sent.set(last.id, last.created_at.getTime());
    }
  }
  return { after, sessionStart, sent };
}

/** The listener row (a webhook of kind `listener`) and its audit entry, in one transaction. */
async function recordOpened(
  ctx: Context,
  audit: AuditContext,
  listener: { webhookId: string; secret: string; appId: string | null; opened: Date; sessionStart: Date },
  input: ListenInput,
): Promise<void> {
  const { webhookId, appId, opened } = listener;
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
      secret_sealed: encryptSecret(ctx.config.masterKey, listener.secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      failing_since: null,
      listen_from: listener.sessionStart,
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
}

/** Opens a stream: its listener is recorded, and the answer reads from where the stream starts. */
export async function openListener(
  ctx: Context,
  apps: AppsCache,
  audit: AuditContext,
  input: ListenInput,
): Promise<Listener> {
  if (audit.mode !== 'test')
    throw new AppError('forbidden', 'Listening is for test mode only: live events go to live endpoints.');
  const appId = input.appId === undefined ? null : await checkOwnApp(ctx, apps, audit, input.appId);
  const secret = listenerSecret(ctx.config.masterKey, input.sessionId);
  const scope = { merchantId: audit.merchantId, mode: audit.mode };
  const opened = new Date(ctx.clock.now());
  const webhookId = newId('wh', opened.getTime());
  const source = appId ? appSource(ctx, appId, webhookId) : merchantSource(ctx, scope, input.types);
  const lastEventId = appId === null ? input.lastEventId : undefined;
  const start = await startOf(ctx, scope, source.kind, opened, lastEventId);
  await closeStale(ctx);
  await recordOpened(
    ctx,
    audit,
    { webhookId, secret, appId, opened, sessionStart: start.sessionStart },
    input,
  );
  return new Listener(ctx, audit, { webhookId, secret, source, start });
}

/** An open stream: what it sent, where it reads next, and its listener's life (touch, close). */
export class Listener {
  readonly webhookId: string;
  readonly secret: string;
  private readonly ctx: Context;
  private readonly audit: AuditContext;
  private readonly key: Buffer;
  private readonly source: Source;
  /** The read position: the stream reads after this cursor. */
  private after: string;
  /** Cursor -> created_at ms of what was sent, within the settle window behind the read position. */
  private readonly sent: Map<string, number>;
  private closed = false;

  constructor(
    ctx: Context,
    audit: AuditContext,
    opened: { webhookId: string; secret: string; source: Source; start: Start },
  ) {
    this.ctx = ctx;
    this.audit = audit;
    this.webhookId = opened.webhookId;
    this.secret = opened.secret;
    this.key = signingKey(opened.secret);
    this.source = opened.source;
    this.after = opened.start.after;
    this.sent = opened.start.sent;
  }

  /** The events recorded since the last call (or replayed), each with its delivery recorded and signed. */
  async next(): Promise<Frame[]> {
    const frames: Frame[] = [];
    let cursor = this.after;
    for (;;) {
      const nowMs = this.ctx.clock.now();
      const rows = await this.source.read(cursor, new Date(nowMs - REPLAY_MS), PAGE);
      const fresh = rows.filter((r) => !this.sent.has(r.cursor));
      if (fresh.length > 0) frames.push(...(await this.send(fresh, nowMs)));
      if (rows.length < PAGE) break;
      cursor = rows[rows.length - 1]!.cursor;
    }
    // Read on from just behind the newest event sent; forget what is now behind the read position.
    const newest = Math.max(...this.sent.values(), 0);
    if (newest > 0) {
      const behind = idFloor(this.source.kind, new Date(newest - SETTLE_MS));
      if (behind > this.after) this.after = behind;
    }
    for (const id of this.sent.keys()) if (id <= this.after) this.sent.delete(id);
    return frames;
  }

  /** Frames of events not sent yet, signed at `nowMs`, each with its delivery. */
  private async send(fresh: readonly Readable[], nowMs: number): Promise<Frame[]> {
    // A merchant's stream records a delivery per event it sends; an app's has them from the fan-out.
    const made = fresh
      .filter((e) => e.deliveryId === undefined)
      .map((e) => ({
        id: newId('dlv', nowMs),
        webhook_id: this.webhookId,
        merchant_id: this.audit.merchantId,
        mode: 'test' as const,
        event_id: e.eventId,
        event_type: e.type,
      }));
    const now = new Date(nowMs);
    await insertListenerDeliveries(this.ctx.db, made, now);
    const ids = new Map(made.map((d) => [d.event_id, d.id]));
    return fresh.map((e) => {
      this.sent.set(e.cursor, e.createdAt.getTime());
      return {
        eventId: e.eventId,
        deliveryId: e.deliveryId ?? ids.get(e.eventId)!,
        type: e.type,
        headers: signedHeaders([this.key], e.eventId, e.body, now),
        body: e.body,
      };
    });
  }

  /** The stream's keep-alive: its listener is alive, and those of dead streams are closed. */
  async touch(): Promise<void> {
    await touchListener(this.ctx.db, this.webhookId, new Date(this.ctx.clock.now()));
    await closeStale(this.ctx);
  }

  /** Closes the listener, once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ctx.db.transaction().execute(async (trx) => {
      await closeListenerRows(
        trx,
        [this.webhookId],
        'The listen stream closed.',
        new Date(this.ctx.clock.now()),
      );
      await writeAudit(trx, this.audit, {
        action: 'webhook.listener_closed',
        entityType: 'webhook',
        entityId: this.webhookId,
      });
    });
  }
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
  // one transaction: the attempt and what it adds to the endpoint's health counts stand or fall together
  const row = await ctx.db.transaction().execute(async (trx) => {
    const recorded = await recordListenerOutcome(
      trx,
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
    if (!recorded || duplicate) return recorded;
    await countOutcomeChange(trx, recorded, {
      attempted: recorded.attempt_count === 1 ? 1 : 0,
      succeeded: recorded.status === 'succeeded' ? 1 : 0,
    });
    // the listener shows its last attempt, as an endpoint does
    await noteListenerAttempt(trx, webhookId, { status: input.status, error }, now);
    return recorded;
  });
  if (!row) throw new AppError('not_found', 'No delivery of a listener awaits a report under this id.');
  return presentDelivery(row);
}
