// The only listener of a `worker` process (SVC_ROLE=worker, API.md 12.1): GET /healthz, GET /readyz and
// GET /metrics, on SVC_METRICS_PORT (else PORT), so that an orchestrator can probe and scrape a process that
// serves no API. Anything else answers 404 `not_found` in the error envelope: an API path sent to a worker by
// mistake is told so at once, rather than served by a process that runs none of the API's hooks.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Context } from './context.ts';
import { requestIds } from './http/request-ids.ts';
import { lazyChildLogger } from './http/logging.ts';
import { AppError } from './lib/errors.ts';
import { answerClientError, installErrorHandler, sendError } from './http/error-handler.ts';
import { registerHealth } from './http/health.ts';
import { serverTimeouts } from './http/timeouts.ts';

export async function buildProbeApp(ctx: Context): Promise<FastifyInstance> {
  const requestId = requestIds();
  const app = Fastify({
    ...serverTimeouts(ctx.config),
    loggerInstance: ctx.log,
    genReqId: (req) => requestId(req.headers['x-request-id']),
    childLoggerFactory: lazyChildLogger,
    clientErrorHandler: answerClientError,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: ctx.config.logLevel !== 'debug' && ctx.config.logLevel !== 'trace',
    }),
  });
  installErrorHandler(app);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  registerHealth(app, ctx);
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await ctx.metrics.scrape();
    return reply.header('content-type', contentType).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      request,
      new AppError('not_found', 'No such path: this process is a worker, with no API.'),
    ),
  );
  await app.ready();
  return app;
}
