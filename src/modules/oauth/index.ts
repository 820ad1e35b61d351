import type { FastifyPluginAsync } from 'fastify';
import { registerCredentialResolver } from '../../http/public-auth.ts';
import type { Module } from '../registry.ts';
import { authorizeRoutes } from './oauth-authorize.routes.ts';
import { resolveAccessToken } from './oauth-bearer.service.ts';
import { connectionsRoutes } from './oauth-connections.routes.ts';
import { startHousekeeping } from './oauth-housekeeping.ts';
import { metadataRoutes } from './oauth-metadata.routes.ts';
import { tokenRoutes } from './oauth-token.routes.ts';

export { authorizationServerMetadata } from './oauth-metadata.routes.ts';
export { sweepExpired } from './oauth-housekeeping.ts';

registerCredentialResolver('access_token', resolveAccessToken);

const routes: FastifyPluginAsync = async (app) => {
  await app.register(metadataRoutes);
  await app.register(authorizeRoutes);
  await app.register(tokenRoutes);
};

export const oauthModule: Module = {
  name: 'oauth',
  merchantRoutes: connectionsRoutes,
  routes,
  start: startHousekeeping,
};
