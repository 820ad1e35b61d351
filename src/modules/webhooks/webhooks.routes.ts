// Merchant interface, webhooks (API.md section 7): thin handlers over webhooks.service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { EmptyBody, errors, pageOf } from '../../http/schemas.ts';
import { PUBLISHED_CATALOG } from '../events/index.ts';
import { deviceCookieOf, type SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { DeliveryHooks } from './webhooks.service.ts';
import {
  CreateWebhookBody,
  EventCatalog,
  RevealSecretBody,
  RevealSecretData,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookData,
  WebhookPage,
  WebhookParams,
  WebhookSecretData,
  WebhooksQuery,
} from './webhooks.schemas.ts';
import * as service from './webhooks.service.ts';

/** `deliveries`: what a change does to the webhook's deliveries, the delivery module's (webhooks/index.ts). */
export const webhookRoutes: FastifyPluginAsync<{
  signIns: SignInLimits;
  apps: AppsCache;
  deliveries: DeliveryHooks;
}> = async (plugin, { signIns, apps, deliveries }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  // Static, so it wins over /webhooks/:webhookID.
  app.get(
    '/webhooks/events',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'listEventTypes',
        summary: 'The event catalog',
        tags: ['Webhooks'],
        response: { 200: EventCatalog, ...errors(401) },
      },
    },
    async () => ({
      data: {
        items: [...PUBLISHED_CATALOG],
        count: PUBLISHED_CATALOG.length,
        has_more: false,
        next_cursor: null,
      },
    }),
  );

  app.post(
    '/webhooks',
    {
      config: { role: 'developer' },
      schema: {
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint',
        tags: ['Webhooks'],
        description: 'The signing secret is in this answer (and can be revealed again with the password).',
        body: CreateWebhookBody,
        response: { 201: WebhookSecretData, ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const data = await service.createWebhook(
        app.ctx,
        deliveries,
        apps,
        auditContext(request),
        request.body,
      );
      return reply.code(201).send({ data });
    },
  );

  app.get(
    '/webhooks',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        tags: ['Webhooks'],
        querystring: WebhooksQuery,
        description: "`app_id` lists one app's webhooks.",
        response: { 200: WebhookPage, ...errors(400, 401) },
      },
    },
    async (request) => ({
      data: await service.listWebhooks(app.ctx, merchantScope(request), {
        ...pageOf(request.query),
        appId: request.query.app_id,
      }),
    }),
  );

  app.get(
    '/webhooks/:webhookID',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint',
        tags: ['Webhooks'],
        params: WebhookParams,
        response: { 200: WebhookData, ...errors(401, 404) },
      },
    },
    async (request) => ({
      data: await service.getWebhook(app.ctx, auditContext(request), request.params.webhookID),
    }),
  );

  app.patch(
    '/webhooks/:webhookID',
    {
      config: { role: 'developer' },
      schema: {
        operationId: 'updateWebhook',
        summary: 'Update a webhook endpoint',
        tags: ['Webhooks'],
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookData, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      data: await service.updateWebhook(
        app.ctx,
        deliveries,
        auditContext(request),
        request.params.webhookID,
        request.body,
      ),
    }),
  );

  app.delete(
    '/webhooks/:webhookID',
    {
      config: { role: 'developer' },
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        tags: ['Webhooks'],
        description: 'Its pending deliveries are cancelled.',
        params: WebhookParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteWebhook(app.ctx, deliveries, auditContext(request), request.params.webhookID);
      return reply.code(204).send(null);
    },
  );

  for (const action of ['enable', 'disable'] as const) {
    app.post(
      `/webhooks/:webhookID/${action}`,
      {
        config: { role: 'developer' },
        schema: {
          operationId: action === 'enable' ? 'enableWebhook' : 'disableWebhook',
          summary: action === 'enable' ? 'Enable a webhook endpoint' : 'Disable a webhook endpoint',
          tags: ['Webhooks'],
          params: WebhookParams,
          body: Type.Optional(EmptyBody),
          response: { 200: WebhookData, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await service.setEnabled(
          app.ctx,
          deliveries,
          auditContext(request),
          request.params.webhookID,
          action === 'enable',
        ),
      }),
    );
  }

  app.post(
    '/webhooks/:webhookID/rotate-secret',
    {
      config: { role: 'developer' },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: "Rotate an endpoint's signing secret",
        tags: ['Webhooks'],
        description: 'During the overlap every delivery carries both signatures.',
        params: WebhookParams,
        body: Type.Optional(RotateSecretBody),
        response: { 200: WebhookSecretData, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      data: await service.rotateSecret(
        app.ctx,
        auditContext(request),
        request.params.webhookID,
        request.body?.previous_secret_expires_in ?? 86_400,
      ),
    }),
  );

  app.post(
    '/webhooks/:webhookID/reveal-secret',
    {
      config: { role: 'developer', stepUp: 'always' },
      schema: {
        operationId: 'revealWebhookSecret',
        summary: 'Show the signing secret again',
        tags: ['Webhooks'],
        description: "Re-enter the signed-in user's password. Audited.",
        params: WebhookParams,
        body: RevealSecretBody,
        response: { 200: RevealSecretData, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const data = await service.revealSecret(app.ctx, signIns, request.params.webhookID, {
        password: request.body.password,
        ip: request.ip,
        device: deviceCookieOf(request.cookies),
        log: request.log,
        audit: auditContext(request),
      });
      return reply.header('cache-control', 'no-store').send({ data });
    },
  );
};
