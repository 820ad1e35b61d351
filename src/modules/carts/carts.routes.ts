import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import { CartAnswer, StoreParams } from './carts.schemas.ts';
import { createCart } from './carts.service.ts';

export const cartRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/stores/:storeID/cart',
    {
      schema: {
        operationId: 'createCart',
        summary: 'Create a cart',
        tags: ['Public'],
        description: 'Secret key or access token with public:write. Honours Idempotency-Key.',
        params: StoreParams,
        body: Type.Optional(EmptyBody),
        response: { 201: CartAnswer, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const cart = await createCart(app.ctx, principalOf(request), request.params.storeID);
      return reply.code(201).send({ data: cart });
    },
  );
};
