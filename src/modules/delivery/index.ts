// The delivery module: the engine that sends what the outbox recorded (API.md sections 7 and 11.4). The
// deliveries table is the queue: workers claim due deliveries with a lease (claim-deliveries), hold and pace
// them (holdings), attempt each (attempt, sender), and record the outcomes in batches (record-outcomes), with
// the retry schedule, the pace of each endpoint and one pending delivery per ordering key. It owns the
// deliveries, their attempts and the endpoints' paces; every change another module makes to them (a retry, a
// recovery, a resend, a cancellation, a listener's delivery, a replay's batch, the retention's purge) is a
// function or a statement's step exported here. Its state (the request path's agent and the opened signing
// keys) is made here and closed by `stop`; the workers make their own agent.
import type { Context } from '../../context.ts';
import type { QueueDepth } from '../../lib/metrics.ts';
import type { Signal } from '../outbox/index.ts';
import type { Background, Module } from '../module.ts';
import { SigningKeys, type Sending } from './attempt.ts';
import { queueDepth } from './queue-depth.repository.ts';
import { createAgent } from '../webhooks/index.ts';
import { startWorker, type Worker } from './worker.ts';

export { applyOutcomes, runAttempt, type Sending } from './attempt.ts';
export { leaseMs } from './worker.ts';
export { deliveryBody, type DeliveryTarget } from './delivery-body.ts';
export {
  cancelPendingDeliveries,
  deliveriesOfEvents,
  findDelivery,
  insertDelivery,
  installationOf,
  listDeliveries,
  requeueDelivery,
  type AttemptRow,
  type DeliveryRow,
} from './deliveries.repository.ts';
export {
  cancelListenerDeliveries,
  insertListenerDeliveries,
  listenerDeliveriesAfter,
  recordListenerOutcome,
  sessionStartOf,
} from './listener-deliveries.repository.ts';
export { countRecoverable, recoverDeliveries, RECOVER_MAX } from './recover.repository.ts';
export { setRateLimit } from './rate-limit.repository.ts';
export { queueReplayed } from './replayed-deliveries.repository.ts';
export { purgeDeliveries } from './purge-expired.repository.ts';
export type { AttemptOutcome, DeliveryStatus } from './delivery.table.ts';

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

export interface DeliveryState {
  /** The request path's agent (the test route sends its first attempt itself) and the opened keys. */
  readonly sending: Sending;
}

export interface DeliveryModule extends Module {
  readonly state: DeliveryState;
  stop(): Promise<void>;
}

export interface DeliveryDeps {
  /** The outbox's wake-up of the delivery workers: new deliveries, here (in memory) or elsewhere (NOTIFY). */
  readonly signal: Signal;
}

export function createDelivery(ctx: Context, deps: DeliveryDeps): DeliveryModule {
  const keys = new SigningKeys(ctx.config.masterKeys);
  const state: DeliveryState = {
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
      worker = await startWorker(ctx, { signal: deps.signal, keys });
    },
    stop: async () => {
      await worker?.stop();
      worker = undefined;
    },
  };
  return {
    name: 'delivery',
    background: [workers],
    state,
    async stop() {
      await state.sending.agent.close().catch(() => {});
    },
  };
}
