// The webhooks module: subscriptions, the event outbox (the events table, recorded with its deliveries in one
// statement), ingestion, the delivery engine and its retention. Its state (the ingestion batch, the two
// wake-up signals, the request path's agent, the opened signing keys) is made here, handed to the routes
// and the workers that use it, and flushed and closed by `stop`.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import { Batcher } from '../../lib/batcher.ts';
import type { QueueDepth } from '../../lib/metrics.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { Background, Module } from '../module.ts';
import { deliveryRoutes } from './deliveries.routes.ts';
import { SigningKeys, type Sending } from './delivery/attempt.ts';
import { purgeLoop } from './delivery/purge.ts';
import { startWorker, type Worker } from './delivery/worker.ts';
import type { EventRow, RecordedEvent } from './events.repository.ts';
import { ingestRoutes } from './ingest.routes.ts';
import { listenRoutes } from './listen.routes.ts';
import { merchantEventRoutes } from './merchant-events.routes.ts';
import {
  ingestEvent,
  recordBatch,
  type EmittedEvent,
  type Ingestion,
  type NewEvent,
} from './outbox.service.ts';
import { queueDepth } from './queue-depth.repository.ts';
import { createAgent } from './sender.ts';
import { DELIVERY_CHANNEL, LISTEN_CHANNEL, Signal } from './signal.ts';
import { webhookRoutes } from './webhooks.routes.ts';

export {
  emitEvent,
  emitEvents,
  eventsOfInstallations,
  type EmittedEvent,
  type Installation,
  type NewEvent,
} from './outbox.service.ts';
export { retireAppWebhooks } from './webhooks.service.ts';
export { deliveriesOfRequest } from './deliveries.service.ts';
export { Delivery } from './webhooks.schemas.ts';
export { rotateSecret as rotateWebhookSecret } from './webhooks.service.ts';
export { webhookSecretsById } from './exposure.repository.ts';

// Events of concurrent ingestion requests written by one statement: at 16 requests in flight this cut the
// database time per event by about half here (one parse, one executor start and one commit per batch).
const INGEST_BATCH = 200;

/** The delivery queue now, for the metrics scrape. */
export async function readQueueDepth(ctx: Context): Promise<QueueDepth> {
  const row = await queueDepth(ctx.db, new Date(ctx.clock.now()));
  return {
    due: row.due,
    scheduled: row.scheduled,
    leased: row.leased,
    oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0),
  };
}

export interface WebhooksState {
  /** The ingestion batch, and the wake-ups of the delivery workers and of `svc listen` streams. */
  readonly ingestion: Ingestion;
  /** The request path's agent (the test route sends its first attempt itself) and the opened keys. */
  readonly sending: Sending;
}

export interface Webhooks extends Module {
  readonly state: WebhooksState;
  /** Ingestion from outside the HTTP interface (`svc events emit`), as the internal route does it. */
  ingest(event: NewEvent): Promise<EmittedEvent>;
  stop(): Promise<void>;
}

export interface WebhooksDeps {
  /** The sign-in failure budgets, which reveal-secret's password check draws on. */
  readonly signIns: SignInLimits;
  /** The oauth-apps module's apps: an app webhook's app is one of the caller's. */
  readonly apps: AppsCache;
}

const merchantRoutes =
  (state: WebhooksState, deps: WebhooksDeps): FastifyPluginAsync =>
  async (app) => {
    await app.register(webhookRoutes, { signIns: deps.signIns, apps: deps.apps });
    await app.register(deliveryRoutes(state.sending));
    await app.register(merchantEventRoutes(state.ingestion.listeners));
    await app.register(listenRoutes(state.ingestion.listeners, deps.apps));
  };

export function createWebhooks(ctx: Context, deps: WebhooksDeps): Webhooks {
  const keys = new SigningKeys(ctx.config.masterKeys);
  const ingestion: Ingestion = {
    batch: new Batcher<EventRow, RecordedEvent>({
      maxBatch: INGEST_BATCH,
      // one id once per batch: a repeat waits for the next batch, where it is a duplicate
      keyOf: (row) => row.id,
      write: (rows) => recordBatch(ctx.db, rows),
      onError: (err, size) => ctx.log.warn({ err, events: size }, 'recording a batch of events failed'),
    }),
    deliveries: new Signal(ctx, DELIVERY_CHANNEL),
    listeners: new Signal(ctx, LISTEN_CHANNEL),
  };
  const state: WebhooksState = {
    ingestion,
    sending: {
      agent: createAgent({
        timeoutMs: ctx.config.webhookTimeoutMs,
        allowPrivate: ctx.config.webhookAllowPrivate,
      }),
      keys,
    },
  };
  // The delivery workers of this process, with an agent of their own (closed when they stop).
  let worker: Worker | undefined;
  const workers: Background = {
    name: 'delivery workers',
    start: async () => {
      worker = await startWorker(ctx, { signal: ingestion.deliveries, keys });
    },
    stop: async () => {
      await worker?.stop();
      worker = undefined;
    },
  };
  return {
    name: 'webhooks',
    merchantRoutes: merchantRoutes(state, deps),
    routes: ingestRoutes(ingestion),
    background: [workers, purgeLoop(ctx)],
    state,
    ingest: (event) => ingestEvent(ctx, ingestion, event),
    async stop() {
      await ingestion.batch.drained();
      await Promise.all([ingestion.deliveries.drained(), ingestion.listeners.drained()]);
      await state.sending.agent.close().catch(() => {});
    },
  };
}
