import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditContext, merchantScope } from '../../http/request.ts';
import { EmptyBody, errors, pageOf } from '../../http/schemas.ts';
import {
  CreateKeyBody,
  KeyAnswer,
  KeyPage,
  KeyParams,
  KeyQuery,
  KeyWithSecretAnswer,
  RotateKeyBody,
} from './api-keys.schemas.ts';
import type { KeyState } from './api-keys.cache.ts';
import * as service from './api-keys.service.ts';

export const apiKeyRoutes =
  (keys: KeyState): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/api-keys',
      {
        config: { role: 'developer', stepUp: 'live' },
        schema: {
          operationId: 'createKeyPair',
          summary: 'Create a key pair',
          tags: ['Credentials'],
          description: 'The secret key is in this answer only.',
          body: Type.Optional(CreateKeyBody),
          response: { 201: KeyWithSecretAnswer, ...errors(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const key = await service.createKey(keys, app.ctx, auditContext(request), request.body ?? {});
        return reply.code(201).send({ data: key });
      },
    );

    app.get(
      '/api-keys',
      {
        config: { role: 'viewer' },
        schema: {
          operationId: 'listKeyPairs',
          summary: 'List key pairs',
          tags: ['Credentials'],
          querystring: KeyQuery,
          response: { 200: KeyPage, ...errors(400, 401) },
        },
      },
      async (request) => ({
        data: await service.listKeys(keys, app.ctx, merchantScope(request), pageOf(request.query)),
      }),
    );

    app.post(
      '/api-keys/:keyID/rotate',
      {
        config: { role: 'developer', stepUp: 'live' },
        schema: {
          operationId: 'rotateKeyPair',
          summary: 'Rotate a key pair',
          tags: ['Credentials'],
          description: 'A new pair; the old one keeps working until the chosen expiry.',
          params: KeyParams,
          body: Type.Optional(RotateKeyBody),
          response: { 201: KeyWithSecretAnswer, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const expiresIn = request.body?.previous_key_expires_in ?? 0;
        const key = await service.rotateKey(
          keys,
          app.ctx,
          auditContext(request),
          request.params.keyID,
          expiresIn,
        );
        return reply.code(201).send({ data: key });
      },
    );

    app.post(
      '/api-keys/:keyID/revoke',
      {
        config: { role: 'developer' },
        schema: {
          operationId: 'revokeKeyPair',
          summary: 'Revoke a key pair',
          tags: ['Credentials'],
          params: KeyParams,
          body: Type.Optional(EmptyBody),
          response: { 200: KeyAnswer, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        data: await service.revokeKey(keys, app.ctx, auditContext(request), request.params.keyID),
      }),
    );
  };
