// What the token endpoint keeps per process, made by createOauthToken and handed to its routes and services:
// nothing of it lives at module level, so two services in one test process behave as two processes.
import type { FirstStores } from '../merchants/index.ts';
import type { AccessTokens } from '../oauth/index.ts';
import type { ClientAuthLimits } from './client-auth.ts';
import type { ExchangeBatcher, RefreshBatcher } from './batches.ts';

export interface TokenState {
  /** The oauth module's access-token cache and grants' last uses. */
  readonly tokens: AccessTokens;
  /** Failed client authentications, per client and per address (the introspection module's too). */
  readonly limits: ClientAuthLimits;
  /** The fast paths' shared statements: refresh rotations, and codes' first uses. */
  readonly refresh: RefreshBatcher;
  readonly exchange: ExchangeBatcher;
  /** The merchants module's first-store memo: the answer names the installation's store. */
  readonly firstStores: FirstStores;
}
