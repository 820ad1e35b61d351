// The token endpoint (RFC 6749 4.1.3 and 6, API.md section 5): the authorization-code and refresh grants, their
// shared statements (batched, on a pool of the module's own on PostgreSQL), and client authentication with its
// failure budgets, which the introspection module's endpoints share. Grants and tokens are the oauth module's:
// this one writes them through that module's index.ts, in its own transactions.
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import type { FirstStores } from '../merchants/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { AccessTokens } from '../oauth/index.ts';
import { exchangeBatcher, refreshBatcher } from './batches.ts';
import { clientAuthLimits, type ClientAuthLimits } from './client-auth.ts';
import { hotPool } from './pool.ts';
import { tokenRoutes } from './token.routes.ts';
import type { TokenState } from './token.state.ts';

export {
  authenticateClient,
  failedCaller,
  param,
  type ClientAuthLimits,
  type Params,
} from './client-auth.ts';
export { OAuthError } from './oauth.errors.ts';
export { NO_STORE, rfcErrors } from './rfc-errors.ts';
export { OAuthErrorBody } from './token.schemas.ts';
export { appAudit } from './token-outcome.ts';

export interface OauthTokenDeps {
  readonly apps: AppsCache;
  readonly tokens: AccessTokens;
  readonly firstStores: FirstStores;
}

export interface OauthTokenModule extends Module {
  /** Failed client authentications, which introspection and revocation count too. */
  readonly limits: ClientAuthLimits;
}

export function createOauthToken(ctx: Context, deps: OauthTokenDeps): OauthTokenModule {
  const pool = hotPool(ctx.config);
  const hot = { db: ctx.db, pool };
  const state: TokenState = {
    tokens: deps.tokens,
    limits: clientAuthLimits(deps.apps, ctx.clock),
    refresh: refreshBatcher(ctx, hot),
    exchange: exchangeBatcher(ctx, hot),
    firstStores: deps.firstStores,
  };
  return {
    name: 'oauth-token',
    limits: state.limits,
    routes: tokenRoutes(state),
    // After HTTP drained: the rotations and exchanges in flight finish (their grants' last uses noted for the
    // oauth module's write, which stops after this module), then the pool closes.
    async stop() {
      await Promise.all([state.refresh.drained(), state.exchange.drained()]);
      await pool?.end();
    },
  };
}
