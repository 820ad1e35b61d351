// What introspection and revocation use per process, made by other modules and handed over by
// createOauthIntrospect: nothing of it lives at module level.
import type { FirstStores } from '../merchants/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { AccessTokens } from '../oauth/index.ts';
import type { ClientAuthLimits } from '../oauth-token/index.ts';

export interface IntrospectState {
  /** The oauth module's access-token cache: a revocation evicts it. */
  readonly tokens: AccessTokens;
  /** The oauth-token module's client-authentication failure limits. */
  readonly limits: ClientAuthLimits;
  /** The oauth-apps module's client cache, and the merchants module's first-store memo. */
  readonly apps: AppsCache;
  readonly firstStores: FirstStores;
}
