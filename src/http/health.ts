// GET /healthz (the process is up) and GET /readyz (it can serve now: src/http/readiness.ts), on the API of
// an `all` or `api` process and on the probe listener of a `worker` (src/probes.ts), with one answer.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../context.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import { isReady } from './readiness.ts';

const status = (value: string) =>
  Type.Object({ data: Type.Object({ status: Type.Literal(value) }) }, { title: `Status${value}` });

export function registerHealth(app: FastifyInstance, ctx: Context): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Whether the process is up',
        tags: ['Health'],
        response: { 200: status('ok') },
      },
    },
    async () => ({
      data: { status: 'ok' },
    }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'Whether the database answers and accepts writes',
        tags: ['Health'],
        response: { 200: status('ready'), 503: status('unavailable') },
      },
    },
    async (_request, reply) =>
      (await isReady(ctx))
        ? { data: { status: 'ready' as const } }
        : reply
            .code(503)
            .header('retry-after', String(RETRY_AFTER_SECONDS))
            .send({ data: { status: 'unavailable' as const } }),
  );
}
