// GET /api/public/v1/stores: the stores the credential may act on, whatever its kind (API.md section 6).
// An installed app learns here (or from its token response) which store_id its cart calls take.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import { PublicStoreList } from './merchants.schemas.ts';
import { listStores } from './stores.service.ts';

export const storeRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/stores',
    {
      schema: {
        operationId: 'listStores',
        summary: 'The stores the credential may act on',
        tags: ['Public'],
        description:
          'Any credential kind: an installed app learns its store here (or from the token response).',
        response: { 200: PublicStoreList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const items = await listStores(app.ctx, principalOf(request));
      return { data: { items, count: items.length, has_more: false, next_cursor: null } };
    },
  );
};
