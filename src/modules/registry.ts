// The feature modules, in load order. Each names its routes by mount:
// - merchantRoutes: under /api/v1/merchant, a merchant session required unless a route sets config.anonymous;
// - publicRoutes: under /api/public/v1, a bearer credential with the method's scope required;
// - routes: at the root, with their own authentication (OAuth endpoints, well-known, internal, dashboard).
// `start` launches the module's background loops and returns their stop function.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../context.ts';
import { merchantsModule } from './merchants/index.ts';
import { auditModule } from './audit/index.ts';
import { oauthAppsModule } from './oauth-apps/index.ts';
import { oauthModule } from './oauth/index.ts';
import { eventsModule } from './events/index.ts';
import { webhooksModule } from './webhooks/index.ts';
import { apiKeysModule } from './api-keys/index.ts';
import { cartsModule } from './carts/index.ts';
import { paymentsModule } from './payments/index.ts';
import { dashboardModule } from './dashboard/index.ts';

export interface Module {
  name: string;
  merchantRoutes?: FastifyPluginAsync;
  publicRoutes?: FastifyPluginAsync;
  routes?: FastifyPluginAsync;
  start?: (ctx: Context) => Promise<() => Promise<void>>;
}

export const MODULES: readonly Module[] = [
  merchantsModule,
  auditModule,
  oauthAppsModule,
  oauthModule,
  eventsModule,
  webhooksModule,
  apiKeysModule,
  cartsModule,
  paymentsModule,
  dashboardModule,
];
