import type { Module } from '../registry.ts';
import { oauthAppsRoutes } from './oauth-apps.routes.ts';

export {
  APPS_CHANNEL,
  appById,
  clientById,
  forgetApp,
  secretMatches,
  watchApps,
  type ClientApp,
} from './oauth-apps.cache.ts';
export { redirectUriIssue } from './oauth-apps.service.ts';
export { SCOPES, intersect, isScope, joinScopes, rights, splitScopes, within } from './scopes.ts';

export const oauthAppsModule: Module = { name: 'oauth-apps', merchantRoutes: oauthAppsRoutes };
