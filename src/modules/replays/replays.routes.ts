// Merchant interface, replays by filter (API.md section 12.2): thin handlers over replays.service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import { WebhookParams } from '../webhooks/index.ts';
import {
  ReplayBody,
  ReplayData,
  ReplayPage,
  ReplayParams,
  ReplayPreviewData,
  ReplaysQuery,
} from './replays.schemas.ts';
import * as service from './replays.service.ts';

/** `replayMade`: this module's replay loop, run at once for a replay made here. */
export const replayRoutes =
  (replayMade: () => void): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/webhooks/:webhookID/replays',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'replayWebhookEvents',
          summary: 'Send again the events of a window',
          tags: ['Webhooks'],
          description:
            'With `preview`, 200 and the count. Otherwise 202 and the replay, which runs in the background: ' +
            'its deliveries go out after every live one due, so it never delays a new event.',
          params: WebhookParams,
          body: ReplayBody,
          response: { 200: ReplayPreviewData, 202: ReplayData, ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const { preview, ...input } = request.body;
        const audit = auditContext(request);
        const id = request.params.webhookID;
        if (preview) return { data: await service.previewReplay(app.ctx, audit, id, input) };
        const data = await service.startReplay(app.ctx, replayMade, audit, id, input);
        return reply.code(202).send({ data });
      },
    );

    app.get(
      '/webhooks/:webhookID/replays',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listWebhookReplays',
          summary: "List an endpoint's replays",
          tags: ['Webhooks'],
          params: WebhookParams,
          querystring: ReplaysQuery,
          response: { 200: ReplayPage, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        data: await service.listWebhookReplays(app.ctx, merchantScope(request), {
          webhookId: request.params.webhookID,
          ...pageOf(request.query),
        }),
      }),
    );

    app.get(
      '/webhooks/:webhookID/replays/:replayID',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'getWebhookReplay',
          summary: 'Get a replay and its progress',
          tags: ['Webhooks'],
          params: ReplayParams,
          response: { 200: ReplayData, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.getReplay(
          app.ctx,
          merchantScope(request),
          request.params.webhookID,
          request.params.replayID,
        ),
      }),
    );

    app.delete(
      '/webhooks/:webhookID/replays/:replayID',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'cancelWebhookReplay',
          summary: 'Cancel a replay',
          tags: ['Webhooks'],
          description:
            'Nothing more is queued; what was queued is sent. An ended replay is answered as it is.',
          params: ReplayParams,
          response: { 200: ReplayData, ...errors(401, 404) },
        },
      },
      async (request) => ({
        data: await service.stopReplay(
          app.ctx,
          auditContext(request),
          request.params.webhookID,
          request.params.replayID,
        ),
      }),
    );
  };
