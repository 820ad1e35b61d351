import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { deliveryRoutes } from './deliveries.routes.ts';
import { listenRoutes } from './listen.routes.ts';
import { merchantEventRoutes } from './merchant-events.routes.ts';
import { startWorker } from './delivery/worker.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { queueDepth } from './queue-depth.repository.ts';
import type { QueueDepth } from '../../lib/metrics.ts';

export { resealWebhookBatch, webhookSecretsUnreadable, webhooksLeftToReseal } from './master-keys.ts';

/** The delivery queue now, for the metrics scrape. */
export async function readQueueDepth(ctx: Context): Promise<QueueDepth> {
  const row = await queueDepth(ctx.db);
  return {
    due: row.due,
    scheduled: row.scheduled,
    leased: row.leased,
    oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0),
  };
}

const merchantRoutes: FastifyPluginAsync = async (app) => {
  await app.register(webhookRoutes);
  await app.register(deliveryRoutes);
  await app.register(merchantEventRoutes);
  await app.register(listenRoutes);
};

export function createWebhooks(ctx: Context): Module {
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  // The delivery workers of this process.
  const workers = {
    name: 'delivery workers',
    start: async () => {
      worker = await startWorker(ctx);
    },
    stop: async () => worker?.stop(),
  };
  return { name: 'webhooks', merchantRoutes, background: [workers] };
}
