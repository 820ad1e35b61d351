// What the OAuth module keeps per process, made by createOauth and handed to the routes and services that
// need it: nothing of it lives at module level, so two services in one test process behave as two processes.
import type { AppsCache } from '../oauth-apps/index.ts';
import type { AccessTokens } from './oauth-bearer.service.ts';

export interface OauthState {
  /** The access-token cache and the grants' last uses waiting to be written. */
  readonly tokens: AccessTokens;
  /** The oauth-apps module's client cache. */
  readonly apps: AppsCache;
}
