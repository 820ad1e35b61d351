import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantOf, merchantScope } from '../../http/request.ts';
import { PageQuery, errors, pageOf } from '../../http/schemas.ts';
import {
  AppParams,
  ConnectionsPage,
  GrantParams,
  InstallationsPage,
  InstallsAnswer,
} from './oauth.schemas.ts';
import { listInstallations } from './installations.service.ts';
import { countInstalls, disconnect, listConnections } from './oauth-connections.service.ts';
import type { OauthState } from './oauth.state.ts';

export const connectionsRoutes =
  (state: OauthState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/developer/connections',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listConnections',
          summary: 'List the apps installed on this account',
          tags: ['OAuth apps'],
          querystring: Type.Object(PageQuery),
          response: { 200: ConnectionsPage, ...errors(400, 401) },
        },
      },
      async (request) => ({
        data: await listConnections(app.ctx, merchantScope(request), pageOf(request.query)),
      }),
    );

    app.delete(
      '/developer/connections/:grantID',
      {
        config: { role: 'admin' },
        schema: {
          operationId: 'deleteConnection',
          summary: 'Disconnect an installed app',
          tags: ['OAuth apps'],
          description: 'Revokes every token of the grant at once.',
          params: GrantParams,
          response: { 204: Type.Null(), ...errors(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await disconnect(app.ctx, state.tokens, auditContext(request), request.params.grantID);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/developer/apps/:appID/installs',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getAppInstalls',
          summary: 'How many stores installed an app',
          tags: ['OAuth apps'],
          params: AppParams,
          response: { 200: InstallsAnswer, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await countInstalls(
          state.apps,
          app.ctx,
          merchantOf(request).merchantId,
          request.mode,
          request.params.appID,
        ),
      }),
    );

    app.get(
      '/developer/apps/:appID/installations',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listAppInstallations',
          summary: 'The stores that installed an app',
          tags: ['OAuth apps'],
          description:
            'Newest first: each installation (grant) with its store and effective scopes, as app deliveries name them.',
          params: AppParams,
          querystring: Type.Object(PageQuery),
          response: { 200: InstallationsPage, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await listInstallations(state.apps, app.ctx, merchantScope(request), {
          ...pageOf(request.query),
          appId: request.params.appID,
        }),
      }),
    );
  };
