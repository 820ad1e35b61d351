// What the OAuth module keeps per process, made by createOauth and handed to the routes and services that
// need it: nothing of it lives at module level, so two services in one test process behave as two processes.
import type { FirstStores } from '../merchants/index.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { AccessTokens } from './oauth-bearer.service.ts';
import type { ClientAuthLimits } from './oauth-client-auth.ts';
import type { ExchangeBatcher, RefreshBatcher } from './oauth-batches.ts';

export interface OauthState {
  /** The access-token cache and the grants' last uses waiting to be written. */
  readonly tokens: AccessTokens;
  /** Failed client authentications, per client and per address. */
  readonly limits: ClientAuthLimits;
  /** The fast paths' shared statements: refresh rotations, and codes' first uses. */
  readonly refresh: RefreshBatcher;
  readonly exchange: ExchangeBatcher;
  /** The oauth-apps module's client cache. */
  readonly apps: AppsCache;
  /** The merchants module's sign-in budgets (the consent page signs in) and first-store memo (store identity). */
  readonly signIns: SignInLimits;
  readonly firstStores: FirstStores;
}
