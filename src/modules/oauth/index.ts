import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import type { Module } from '../module.ts';
import type { FirstStores } from '../merchants/index.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import { authorizeRoutes } from './oauth-authorize.routes.ts';
import { accessTokens, resolveAccessToken } from './oauth-bearer.service.ts';
import { clientAuthLimits } from './oauth-client-auth.ts';
import { connectionsRoutes } from './oauth-connections.routes.ts';
import { housekeeping } from './oauth-housekeeping.ts';
import { redactionLoop } from './installations.service.ts';
import { metadataRoutes } from './oauth-metadata.routes.ts';
import { hotPool } from './oauth.pool.ts';
import { exchangeBatcher, refreshBatcher } from './oauth-batches.ts';
import type { OauthState } from './oauth.state.ts';
import { tokenRoutes } from './oauth-token.routes.ts';

export { authorizationServerMetadata } from './oauth-metadata.routes.ts';
export { sweepExpired } from './oauth-housekeeping.ts';
export { recordAllowedScopesChange, sweepRedactions } from './installations.service.ts';

export interface OauthDeps {
  readonly credentials: CredentialResolvers;
  readonly apps: AppsCache;
  readonly signIns: SignInLimits;
  readonly firstStores: FirstStores;
}

export function createOauth(ctx: Context, deps: OauthDeps): Module {
  const pool = hotPool(ctx.config);
  const hot = pool ? { pool } : { db: ctx.db };
  const state: OauthState = {
    tokens: accessTokens(ctx, deps.apps),
    limits: clientAuthLimits(deps.apps, ctx.clock),
    refresh: refreshBatcher(ctx, hot),
    exchange: exchangeBatcher(ctx, hot),
    apps: deps.apps,
    signIns: deps.signIns,
    firstStores: deps.firstStores,
  };
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(metadataRoutes);
    await app.register(authorizeRoutes(state));
    await app.register(tokenRoutes(state, deps.credentials));
  };
  return {
    name: 'oauth',
    merchantRoutes: connectionsRoutes(state),
    routes,
    credentials: { access_token: (c, token) => resolveAccessToken(c, state.tokens, token) },
    background: [housekeeping(ctx), redactionLoop(ctx)],
    // After HTTP drained: the rotations and exchanges in flight finish, the grants' last uses gathered since
    // the loop's last run reach the database, then the pool closes.
    async stop() {
      await Promise.all([state.refresh.drained(), state.exchange.drained()]);
      try {
        await state.tokens.uses.stop();
      } finally {
        await pool?.end();
      }
    },
  };
}
