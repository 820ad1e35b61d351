import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import type { Module } from '../registry.ts';
import { deliveryRoutes } from './deliveries.routes.ts';
import { listenRoutes } from './listen.routes.ts';
import { merchantEventRoutes } from './merchant-events.routes.ts';
import { startWorker } from './delivery/worker.ts';
import { webhookRoutes } from './webhooks.routes.ts';

const merchantRoutes: FastifyPluginAsync = async (app) => {
  await app.register(webhookRoutes);
  await app.register(deliveryRoutes);
  await app.register(merchantEventRoutes);
  await app.register(listenRoutes);
};

/** The delivery workers of this process; the returned function stops them cleanly. */
async function start(ctx: Context): Promise<() => Promise<void>> {
  const worker = await startWorker(ctx);
  return () => worker.stop();
}

export const webhooksModule: Module = { name: 'webhooks', merchantRoutes, start };
