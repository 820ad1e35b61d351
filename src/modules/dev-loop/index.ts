// The dev-loop module: the merchant's window onto what the outbox recorded and the delivery module sent, and
// the developer's loop with it (API.md sections 7, 10 and 12.2): the deliveries of an endpoint with their
// attempts, retry, recover, the test route, the account's events with where each went, resend, trigger, and
// `svc listen`'s stream (replays and the list of every attempt are rooms of their own: the replays and attempts
// modules). It owns no table and holds no SQL: each read and change is a function of the module that owns the
// rows (webhooks, outbox, delivery), called in this module's use case and its transaction.
import type { FastifyPluginAsync } from 'fastify';
import type { Sending } from '../delivery/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { Signal } from '../outbox/index.ts';
import type { Module } from '../module.ts';
import { deliveryRoutes } from './deliveries.routes.ts';
import { listenRoutes } from './listen.routes.ts';
import { merchantEventRoutes } from './merchant-events.routes.ts';

export { Delivery } from './deliveries.schemas.ts';
export { deliveriesOfRequest } from './events.service.ts';

export interface DevLoopDeps {
  /** The delivery module's request-path agent and keys: the test route sends its first attempt itself. */
  readonly sending: Sending;
  /** The outbox's wake-up of `svc listen` streams: test-mode events were recorded, here or elsewhere. */
  readonly listeners: Signal;
  /** The oauth-apps module's apps, for an app's stream. */
  readonly apps: AppsCache;
}

const merchantRoutes =
  (deps: DevLoopDeps): FastifyPluginAsync =>
  async (app) => {
    await app.register(deliveryRoutes(deps.sending));
    await app.register(merchantEventRoutes(deps.listeners));
    await app.register(listenRoutes(deps.listeners, deps.apps));
  };

export function createDevLoop(deps: DevLoopDeps): Module {
  return { name: 'dev-loop', merchantRoutes: merchantRoutes(deps) };
}
