// GET and DELETE /api/public/v1/app/installations (API.md section 12.3): the app's own routes, which take an
// app token (client_credentials, scope app:installations) and nothing else. The public auth hook lets an app
// token through here only (`config.appToken`); a store's credential reaching these routes lacks the scope.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requestMeta } from '../../http/request.ts';
import { PageQuery, errors, pageOf } from '../../http/schemas.ts';
import { AppError } from '../../lib/errors.ts';
import { APP_INSTALLATIONS } from '../../lib/scopes.ts';
import { installationsOfApp, uninstallByApp } from './app-installations.service.ts';
import { AppInstallationsPage, GrantParams } from './oauth.schemas.ts';
import type { OauthState } from './oauth.state.ts';

/** The app an app token names; a key or a store's access token is refused for want of the scope. */
function appIdOf(request: FastifyRequest): string {
  const principal = principalOf(request);
  if (principal.appToken !== true || principal.appId === undefined) {
    throw new AppError(
      'insufficient_scope',
      `This route takes an app token: grant_type=client_credentials at the token endpoint (scope ${APP_INSTALLATIONS}).`,
      {
        headers: {
          'www-authenticate': `Bearer realm="svc", error="insufficient_scope", scope="${APP_INSTALLATIONS}"`,
        },
      },
    );
  }
  return principal.appId;
}

export const appInstallationsRoutes =
  (state: OauthState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/app/installations',
      {
        config: { appToken: true },
        schema: {
          operationId: 'listOwnInstallations',
          summary: "The app's active installations (app token)",
          tags: ['Public'],
          description:
            'With an app token (grant_type=client_credentials): the stores that installed the app and have not ' +
            'disconnected it, newest first.',
          querystring: Type.Object(PageQuery),
          response: { 200: AppInstallationsPage, ...errors(400, 401, 403) },
        },
      },
      async (request) => ({
        data: await installationsOfApp(state.apps, app.ctx, appIdOf(request), pageOf(request.query)),
      }),
    );

    app.delete(
      '/app/installations/:grantID',
      {
        config: { appToken: true },
        schema: {
          operationId: 'deleteOwnInstallation',
          summary: 'Uninstall the app from a store (app token)',
          tags: ['Public'],
          description:
            "The installation's tokens stop working at once; app.uninstalled is recorded with reason " +
            '`app_requested`, and store.redact follows as after a disconnection.',
          params: GrantParams,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const appId = appIdOf(request);
        await uninstallByApp(
          state.apps,
          state.tokens,
          app.ctx,
          appId,
          request.params.grantID,
          requestMeta(request),
        );
        return reply.code(204).send(null);
      },
    );
  };
