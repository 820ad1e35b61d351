import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.ts';
import { CountryList } from './payments.schemas.ts';
import { SUPPORTED_COUNTRIES_JSON } from './payments.service.ts';

export const paymentRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/payments/supported-countries',
    {
      schema: {
        operationId: 'listSupportedCountries',
        summary: 'List supported countries',
        tags: ['Public'],
        description: 'Any credential with public:read (a publishable key is enough). All in one page.',
        response: { 200: CountryList, ...errors(400, 401, 403) },
      },
    },
    // Serialised once, at startup, and sent as bytes (a Buffer skips Fastify's serialiser and Node's encoding).
    // A plain handler: an async one costs a promise and a microtask on the cheapest public call.
    (_request, reply) => {
      void reply.type('application/json; charset=utf-8').send(SUPPORTED_COUNTRIES_JSON as never);
    },
  );
};
