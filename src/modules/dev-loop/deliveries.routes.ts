// Merchant interface, deliveries and the test route (API.md section 7): thin handlers over deliveries.service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { EmptyBody, errors, pageOf } from '../../http/schemas.ts';
import type { Sending } from '../delivery/index.ts';
import { WebhookParams } from '../webhooks/index.ts';
import {
  DeliveriesQuery,
  DeliveryAttemptsData,
  DeliveryData,
  DeliveryPage,
  DeliveryParams,
  RecoverBody,
  RecoverData,
  TestWebhookBody,
} from './deliveries.schemas.ts';
import * as service from './deliveries.service.ts';

export const deliveryRoutes =
  (sending: Sending): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/webhooks/:webhookID/test',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'testWebhook',
          summary: 'Send a test event now',
          tags: ['Webhooks'],
          description: 'Answers with the delivery after its first attempt.',
          params: WebhookParams,
          body: Type.Optional(TestWebhookBody),
          response: { 200: DeliveryAttemptsData, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await service.testWebhook(
          app.ctx,
          sending,
          auditContext(request),
          request.params.webhookID,
          request.body?.event,
        ),
      }),
    );

    app.get(
      '/webhooks/:webhookID/deliveries',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listDeliveries',
          summary: "List an endpoint's deliveries",
          tags: ['Webhooks'],
          params: WebhookParams,
          querystring: DeliveriesQuery,
          response: { 200: DeliveryPage, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await service.listDeliveries(app.ctx, merchantScope(request), {
          ...pageOf(request.query),
          webhookId: request.params.webhookID,
          status: request.query.status,
          storeId: request.query.store_id,
        }),
      }),
    );

    app.get(
      '/webhooks/:webhookID/deliveries/:deliveryID',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getDelivery',
          summary: 'Get a delivery with its attempts',
          tags: ['Webhooks'],
          params: DeliveryParams,
          response: { 200: DeliveryAttemptsData, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.getDelivery(
          app.ctx,
          auditContext(request),
          request.params.webhookID,
          request.params.deliveryID,
        ),
      }),
    );

    app.post(
      '/webhooks/:webhookID/deliveries/:deliveryID/retry',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'retryDelivery',
          summary: 'Retry a delivery now',
          tags: ['Webhooks'],
          params: DeliveryParams,
          body: Type.Optional(EmptyBody),
          response: { 202: DeliveryData, ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const data = await service.retryDelivery(
          app.ctx,
          auditContext(request),
          request.params.webhookID,
          request.params.deliveryID,
        );
        return reply.code(202).send({ data });
      },
    );

    app.post(
      '/webhooks/:webhookID/recover',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'recoverWebhookDeliveries',
          summary: 'Send again every failed delivery since a time',
          tags: ['Webhooks'],
          description: 'With preview, only counts. Idempotent; at most 10,000 per call.',
          params: WebhookParams,
          body: RecoverBody,
          response: { 200: RecoverData, 202: RecoverData, ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const audit = auditContext(request);
        const since = new Date(request.body.since);
        if (request.body.preview) {
          return { data: await service.previewRecovery(app.ctx, audit, request.params.webhookID, since) };
        }
        const data = await service.recoverFailed(app.ctx, audit, request.params.webhookID, since);
        return reply.code(202).send({ data });
      },
    );
  };
