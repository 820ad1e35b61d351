// POST /internal/v1/events: event ingestion for the rest of the platform (API.md section 7), authenticated
// by the service's internal token. With no token configured the route does not exist (404).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../http/merchant-auth.ts';
import { errors } from '../../http/schemas.ts';
import { AppError } from '../../lib/errors.ts';
import { IngestBody, Ingested } from './ingest.schemas.ts';
import { ingestEvent, type Ingestion } from './outbox.service.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

function checkInternalToken(request: FastifyRequest): void {
  const expected = request.server.ctx.config.internalToken;
  if (!expected) throw new AppError('not_found', 'No such path.');
  const token = bearerToken(request);
  if (token === undefined)
    throw new AppError('unauthenticated', 'Send the internal token as a Bearer token.');
  // Digests of equal length, compared in constant time: the answer time says nothing about the token.
  if (!timingSafeEqual(digest(token), digest(expected)))
    throw new AppError('invalid_credential', 'The internal token is wrong.');
}

export const ingestRoutes =
  (ingestion: Ingestion): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/internal/v1/events',
      {
        onRequest: async (request) => checkInternalToken(request),
        schema: {
          operationId: 'ingestEvent',
          summary: 'Record an event of the platform and deliver it',
          tags: ['Internal'],
          description: 'For the rest of the platform, with the internal token. Idempotent by event id.',
          body: IngestBody,
          response: { 200: Ingested, 202: Ingested, ...errors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const result = await ingestEvent(app.ctx, ingestion, {
          merchantId: b.merchant_id,
          mode: b.mode,
          type: b.type,
          data: b.data,
          // The platform acting on a public call passes that call's X-Request-Id: the request log then links
          // the call to this event's deliveries.
          requestId: request.id,
          ...(b.id !== undefined ? { id: b.id } : {}),
          orderingKey: b.ordering_key,
        });
        if (result.duplicate) return reply.code(200).send({ data: result });
        return reply.code(202).send({ data: { id: result.id, deliveries: result.deliveries } });
      },
    );
  };
