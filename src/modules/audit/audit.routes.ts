import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { merchantOf } from '../../http/request.ts';
import { errors, page } from '../../http/schemas.ts';
import { iso } from '../../lib/time.ts';
import { LogsPage, LogsQuery } from './audit.schemas.ts';
import { listLogs } from './audit.service.ts';

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
      const limit = q.limit ?? 50;
      const { rows, count } = await listLogs(app.ctx.db, {
        merchantId: merchantOf(request).merchantId,
        mode: request.mode,
        limit,
        startingAfter: q.starting_after,
        action: q.action,
        entityType: q.entity_type,
        entityId: q.entity_id,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      });
      const items = rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
      return { data: page(items, limit, count) };
    },
  );
};
