import type { Module } from '../module.ts';
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
export { SCOPES, intersect, isScope, joinScopes, rights, splitScopes, within } from '../../lib/scopes.ts';

export function createOauthApps(): Module {
  return { name: 'oauth-apps', merchantRoutes: oauthAppsRoutes };
}
