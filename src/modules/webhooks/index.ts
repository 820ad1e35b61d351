// The webhooks module: subscriptions (API.md section 7), a merchant's or an app's endpoints with their signing
// secrets, the event types they hear, their delivery rules and their health, and the listeners of `svc
// listen` (webhook rows of kind `listener`), and what a receiver's operator reads to let deliveries in: the
// addresses they leave from (egress.routes.ts, both interfaces). It owns the webhooks table; the outbox reads who subscribes, the
// delivery module sends to them and writes their health through this module's functions, and the dev-loop
// module opens and closes listeners through them. It imports none of those: what a change of a subscription
// does to its deliveries comes in as `DeliveryHooks`, supplied by src/modules.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { Module } from '../module.ts';
import type { DeliveryHooks } from './webhooks.service.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { merchantEgressRoutes, publicEgressRoutes, type SourceAddresses } from './egress.routes.ts';

export {
  checkOwnApp,
  findOwnEndpoint,
  findOwnWebhook,
  retireAppWebhooks,
  rotateSecret as rotateWebhookSecret,
  type DeliveryHooks,
} from './webhooks.service.ts';
export {
  appSubscriptions,
  insertWebhook,
  purgeDeletedWebhooks,
  type WebhookRow,
} from './webhooks.repository.ts';
export { listEndpoints, type EndpointSummary } from './endpoints.repository.ts';
export { webhookSecretsById } from './exposure.repository.ts';
export { disableFailing, FAILING_DAYS } from './disable-failing.repository.ts';
export {
  countOutcomeChange,
  purgeHealthCounts,
  recordHealth,
  type CountedDelivery,
} from './health.repository.ts';
export type { PayloadFilter } from './payload-filter.ts';
export {
  closeListeners,
  noteListenerAttempt,
  staleListeners,
  touchListener,
} from './listeners.repository.ts';
export { signedHeaders, signingKey, type SignedHeaders } from './signing.ts';
export { createAgent, RESPONSE_BODY_LIMIT, sendOnce, WriteDeadlineError, type SendResult } from './sender.ts';
export { EventType, WebhookParams } from './webhooks.schemas.ts';

export type Webhooks = Module;

export interface WebhooksDeps {
  /** The sign-in failure budgets, which reveal-secret's password check draws on. */
  readonly signIns: SignInLimits;
  /** The oauth-apps module's apps: an app webhook's app is one of the caller's. */
  readonly apps: AppsCache;
  /** The delivery module's part of a subscription's change: its pending deliveries, its rate limit. */
  readonly deliveries: DeliveryHooks;
}

const merchantRoutes =
  (deps: WebhooksDeps, egress: SourceAddresses): FastifyPluginAsync =>
  async (app) => {
    await app.register(webhookRoutes, deps);
    await app.register(merchantEgressRoutes(egress));
  };

export function createWebhooks(ctx: Context, deps: WebhooksDeps): Webhooks {
  // Without a configured time, the list is as old as this process's reading of the configuration.
  const egress: SourceAddresses = {
    addresses: ctx.config.egressAddresses,
    updated_at: (ctx.config.egressUpdatedAt ?? new Date(ctx.clock.now())).toISOString(),
  };
  return {
    name: 'webhooks',
    merchantRoutes: merchantRoutes(deps, egress),
    publicRoutes: publicEgressRoutes(egress),
  };
}
