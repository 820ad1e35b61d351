import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import { createAppsCache, type AppsCache } from './oauth-apps.cache.ts';
import { oauthAppsRoutes } from './oauth-apps.routes.ts';

export {
  APPS_CHANNEL,
  appById,
  clientById,
  forgetApp,
  secretMatches,
  watchApps,
  type AppsCache,
  type ClientApp,
} from './oauth-apps.cache.ts';
export { redirectUriIssue, rotateAppSecret, type AppHooks } from './oauth-apps.service.ts';
export { appSecretsById } from './exposure.repository.ts';
import type { AppHooks } from './oauth-apps.service.ts';
export { SCOPES, intersect, isScope, joinScopes, rights, splitScopes, within } from '../../lib/scopes.ts';

export interface OauthAppsModule extends Module {
  /** This process's apps: the OAuth module looks clients up through it (`clientById`, `appById`). */
  readonly apps: AppsCache;
}

export function createOauthApps(ctx: Context, hooks: AppHooks = {}): OauthAppsModule {
  const apps = createAppsCache(ctx.bus);
  return { name: 'oauth-apps', apps, merchantRoutes: oauthAppsRoutes(apps, hooks) };
}
