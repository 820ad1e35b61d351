// GET /healthz (the process is up) and GET /readyz (it can serve now: src/http/readiness.ts; with the read
// replicas' states), on the API of an `all` or `api` process and on the probe listener of a `worker`
// (src/probes.ts), with one answer.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../context.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import { isReady } from './readiness.ts';

const status = (value: string) =>
  Type.Object({ data: Type.Object({ status: Type.Literal(value) }) }, { title: `Status${value}` });

const ReplicaState = Type.Object(
  {
    name: Type.String({ description: 'host:port of the replica (never its credentials)' }),
    state: Type.Union([Type.Literal('up'), Type.Literal('lagging'), Type.Literal('down')], {
      description: 'up: serves reads; lagging: replays beyond SVC_REPLICA_MAX_LAG_MS; down: does not answer',
    }),
    lag_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Replay lag at the last probe (every 0.5 s); null while unknown',
    }),
  },
  { title: 'ReplicaState' },
);

// /readyz says, beside its status, how each read replica stands (API.md 12.1): none of them decides readiness,
// since a replica that is down or behind only sends its reads to the primary.
const readiness = (...values: string[]) =>
  Type.Object(
    {
      data: Type.Object({
        status:
          values.length === 1 ? Type.Literal(values[0]!) : Type.Union(values.map((v) => Type.Literal(v))),
        replicas: Type.Optional(Type.Array(ReplicaState)),
      }),
    },
    { title: `Status${values.join('Or')}` },
  );

/** Present where replicas serve reads (DATABASE_REPLICA_URL, not a `worker`); otherwise the answer is as before. */
function replicas(ctx: Context) {
  const status = ctx.reads.status();
  return status.length === 0
    ? {}
    : { replicas: status.map((r) => ({ name: r.name, state: r.state, lag_ms: r.lagMs })) };
}

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
        summary:
          'Whether the database answers and accepts writes, the process is not stopping, and how each read ' +
          'replica stands',
        description:
          '503 `draining` from SIGTERM until the process stops accepting (SVC_SHUTDOWN_DELAY_MS): take it out of ' +
          'rotation.',
        tags: ['Health'],
        response: { 200: readiness('ready'), 503: readiness('unavailable', 'draining') },
      },
    },
    async (_request, reply) => {
      if (ctx.lifecycle.draining)
        return reply.code(503).send({ data: { status: 'draining' as const, ...replicas(ctx) } });
      return (await isReady(ctx))
        ? { data: { status: 'ready' as const, ...replicas(ctx) } }
        : reply
            .code(503)
            .header('retry-after', String(RETRY_AFTER_SECONDS))
            .send({ data: { status: 'unavailable' as const, ...replicas(ctx) } });
    },
  );
}
