// GET /healthz (the process is up) and GET /readyz (it can serve now: src/http/readiness.ts), on the API of
// an `all` or `api` process and on the probe listener of a `worker` (src/probes.ts), with one answer.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../context.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import { isReady } from './readiness.ts';

const status = (...values: string[]) =>
  Type.Object(
    {
      data: Type.Object({
        status:
          values.length === 1 ? Type.Literal(values[0]!) : Type.Union(values.map((v) => Type.Literal(v))),
      }),
    },
    { title: `Status${values.join('Or')}` },
  );

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
        summary: 'Whether the database answers and accepts writes, and the process is not stopping',
        description:
          '503 `draining` from SIGTERM until the process stops accepting (SVC_SHUTDOWN_DELAY_MS): take it out of ' +
          'rotation.',
        tags: ['Health'],
        response: { 200: status('ready'), 503: status('unavailable', 'draining') },
      },
    },
    async (_request, reply) => {
      if (ctx.lifecycle.draining) return reply.code(503).send({ data: { status: 'draining' as const } });
      return (await isReady(ctx))
        ? { data: { status: 'ready' as const } }
        : reply
            .code(503)
            .header('retry-after', String(RETRY_AFTER_SECONDS))
            .send({ data: { status: 'unavailable' as const } });
    },
  );
}
