import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import {
  AppData,
  AppParams,
  AppSecretData,
  AppsPage,
  AppsQuery,
  CreateAppBody,
  RotateSecretBody,
  UpdateAppBody,
} from './oauth-apps.schemas.ts';
import type { AppsCache } from './oauth-apps.cache.ts';
import * as service from './oauth-apps.service.ts';
import type { AppHooks } from './oauth-apps.service.ts';

export const oauthAppsRoutes =
  (apps: AppsCache, hooks: AppHooks): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/developer/apps',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listApps',
          summary: 'List OAuth apps',
          tags: ['OAuth apps'],
          querystring: AppsQuery,
          response: { 200: AppsPage, ...errors(400, 401) },
        },
      },
      async (request) => ({
        data: await service.listApps(app.ctx, merchantScope(request), pageOf(request.query)),
      }),
    );

    app.post(
      '/developer/apps',
      {
        config: { role: 'developer', stepUp: 'live' },
        schema: {
          operationId: 'createApp',
          summary: 'Create an OAuth app',
          tags: ['OAuth apps'],
          description: 'The client secret is in this answer only.',
          body: CreateAppBody,
          response: { 201: AppSecretData, ...errors(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const created = await service.createApp(app.ctx, auditContext(request), request.body);
        return reply.code(201).send({ data: created });
      },
    );

    app.get(
      '/developer/apps/:appID',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getApp',
          summary: 'Get an OAuth app',
          tags: ['OAuth apps'],
          params: AppParams,
          response: { 200: AppData, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.getApp(app.ctx, merchantScope(request), request.params.appID),
      }),
    );

    app.patch(
      '/developer/apps/:appID',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'updateApp',
          summary: 'Update an OAuth app',
          tags: ['OAuth apps'],
          description: 'Narrowing allowed_scopes narrows what existing tokens may do at once.',
          params: AppParams,
          body: UpdateAppBody,
          response: { 200: AppData, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        data: await service.updateApp(
          apps,
          hooks,
          app.ctx,
          auditContext(request),
          request.params.appID,
          request.body,
        ),
      }),
    );

    // API.md section 12.3 names this path for switching to private_key_jwt and back: the same update.
    app.patch(
      '/apps/:appID',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'updateAppAuthentication',
          summary: 'Update an OAuth app (also at /developer/apps/{appID})',
          tags: ['OAuth apps'],
          description:
            'The same update as PATCH /developer/apps/{appID}, at the path API.md section 12.3 gives for ' +
            '`token_endpoint_auth_method` and `jwks`.',
          params: AppParams,
          body: UpdateAppBody,
          response: { 200: AppData, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        data: await service.updateApp(
          apps,
          hooks,
          app.ctx,
          auditContext(request),
          request.params.appID,
          request.body,
        ),
      }),
    );

    app.post(
      '/developer/apps/:appID/rotate-secret',
      {
        config: { role: 'developer', stepUp: 'live' },
        schema: {
          operationId: 'rotateAppSecret',
          summary: "Rotate an app's client secret",
          tags: ['OAuth apps'],
          description:
            'Installs survive: grants and tokens stay valid, the app authenticates with the new secret.',
          params: AppParams,
          body: RotateSecretBody,
          response: { 200: AppSecretData, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        data: await service.rotateAppSecret(
          apps,
          app.ctx,
          auditContext(request),
          request.params.appID,
          request.body.previous_secret_expires_in ?? 0,
        ),
      }),
    );

    app.delete(
      '/developer/apps/:appID',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'deleteApp',
          summary: 'Delete an OAuth app',
          tags: ['OAuth apps'],
          description: 'Every grant, code and token of the app stops working at once.',
          params: AppParams,
          response: { 204: Type.Null(), ...errors(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteApp(apps, hooks, app.ctx, auditContext(request), request.params.appID);
        return reply.code(204).send(null);
      },
    );
  };
