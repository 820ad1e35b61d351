// Merchant interface, every delivery attempt of the merchant's endpoints (API.md section 12.2): a thin handler
// over attempts.service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import { AttemptsQuery, DeliveryAttemptPage } from './attempts.schemas.ts';
import { listAttempts } from './attempts.service.ts';

export const attemptRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/webhook-attempts',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'listWebhookAttempts',
        summary: "List every delivery attempt of the account's endpoints",
        tags: ['Webhooks'],
        description:
          'Newest first, across every endpoint of the mode, app webhooks included. Each filter takes one value ' +
          'or several, comma-separated; filters combine.',
        querystring: AttemptsQuery,
        response: { 200: DeliveryAttemptPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        data: await listAttempts(app.ctx, merchantScope(request), {
          ...pageOf(q),
          webhookId: q.webhook_id,
          eventType: q.event_type,
          outcome: q.outcome,
          statusClass: q.status_class,
          storeId: q.store_id,
          appId: q.app_id,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
        }),
      };
    },
  );
};
