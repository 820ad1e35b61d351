import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { errors, pageOf } from '../../http/schemas.ts';
import { ExportQuery, LogsPage, LogsQuery } from './audit.schemas.ts';
import { exportLogs, listLogs } from './audit.service.ts';

export const auditRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/developer/logs',
    {
      schema: {
        tags: ['Logs'],
        security: [{ session: [] }],
        querystring: LogsQuery,
        response: { 200: LogsPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const logs = await listLogs(app.ctx, merchantScope(request), {
        ...pageOf(q),
        action: q.action,
        entityType: q.entity_type,
        entityId: q.entity_id,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      });
      return { data: logs };
    },
  );

  app.get(
    '/developer/logs/export',
    {
      schema: {
        tags: ['Logs'],
        security: [{ session: [] }],
        summary: 'Download the log, as CSV or JSON Lines, with the filters of the logs page.',
        querystring: ExportQuery,
        produces: ['text/csv', 'application/x-ndjson'],
        response: {
          200: {
            description: 'The matching entries, newest first, streamed (at most 1,000,000).',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/x-ndjson': { schema: { type: 'string' } },
            },
          },
          ...errors(400, 401),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const format = q.format ?? 'csv';
      const audit = auditContext(request);
      const stream = await exportLogs(
        app.ctx,
        audit,
        {
          action: q.action,
          entityType: q.entity_type,
          entityId: q.entity_id,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
        },
        format,
      );
      const day = new Date(app.ctx.clock.now()).toISOString().slice(0, 10);
      return (
        reply
          .header('cache-control', 'no-store')
          .header('content-disposition', `attachment; filename="svc-logs-${audit.mode}-${day}.${format}"`)
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          // a stream of the documented text, which the schema can only describe as a string
          .send(stream as unknown as string)
      );
    },
  );
};
