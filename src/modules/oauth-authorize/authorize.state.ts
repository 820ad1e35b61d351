// What the authorize and consent endpoints use per process, made by other modules and handed over by
// createOauthAuthorize: nothing of it lives at module level.
import type { FirstStores } from '../merchants/index.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { AccessTokens } from '../oauth/index.ts';

export interface AuthorizeState {
  /** The oauth module's access-token cache: a consent that changes a grant's scopes evicts its tokens. */
  readonly tokens: AccessTokens;
  /** The oauth-apps module's client cache. */
  readonly apps: AppsCache;
  /** The identity module's sign-in budgets (the authorize page signs in) and the merchants module's first-store memo. */
  readonly signIns: SignInLimits;
  readonly firstStores: FirstStores;
}
