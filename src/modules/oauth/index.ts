import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import type { Module } from '../module.ts';
import type { FirstStores, SignInLimits } from '../merchants/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import { authorizeRoutes } from './oauth-authorize.routes.ts';
import { resolveAccessToken } from './oauth-bearer.service.ts';
import { connectionsRoutes } from './oauth-connections.routes.ts';
import { housekeeping } from './oauth-housekeeping.ts';
import { metadataRoutes } from './oauth-metadata.routes.ts';
import { tokenRoutes } from './oauth-token.routes.ts';

export { authorizationServerMetadata } from './oauth-metadata.routes.ts';
export { sweepExpired } from './oauth-housekeeping.ts';

/** What the OAuth module uses of earlier modules' state. */
export interface OauthDeps {
  credentials: CredentialResolvers;
  apps: AppsCache;
  signIns: SignInLimits;
  firstStores: FirstStores;
}

export function createOauth(ctx: Context, deps: OauthDeps): Module {
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(metadataRoutes);
    await app.register(authorizeRoutes, { apps: deps.apps, signIns: deps.signIns });
    await app.register(tokenRoutes(deps.credentials, deps.apps, deps.firstStores));
  };
  return {
    name: 'oauth',
    merchantRoutes: async (app) => {
      await app.register(connectionsRoutes, { apps: deps.apps });
    },
    routes,
    credentials: { access_token: (c, token) => resolveAccessToken(deps.apps, c, token) },
    background: [housekeeping(ctx)],
  };
}
