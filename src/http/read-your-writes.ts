// Read-your-writes with read replicas (API.md 12.1): a write that a merchant's session or key made, answered
// here, keeps that merchant's lag-tolerant reads on the primary for SVC_REPLICA_STICKY_MS (src/db/replicas.ts).
// Marked before the answer leaves, so the client's next read, in this process or another, finds the mark: the
// other processes hear of it over the bus, and the answer waits for that notification to be sent (once per
// merchant per third of the window; the other writes only set the local mark).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Installed on the app before its interfaces, so that it sees every route's answer; nothing without replicas. */
export function readYourWrites(app: FastifyInstance, ctx: Context): void {
  if (ctx.config.replicas.urls.length === 0) return;
  app.addHook(
    'onSend',
    (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: Error | null, payload: unknown) => void,
    ) => {
      // A refusal (4xx) wrote nothing; a 5xx may have committed before it failed, so it counts as a write.
      const status = reply.statusCode;
      const merchantId = request.merchant?.merchantId ?? request.principal?.merchantId;
      if (READS.has(request.method) || merchantId === undefined || (status >= 400 && status < 500))
        return done(null, payload);
      const sent = ctx.reads.wrote(merchantId);
      if (!sent) return done(null, payload);
      void sent.then(() => done(null, payload));
    },
  );
}
