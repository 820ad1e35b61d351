// A user's passkeys: register, list, remove (API.md section 11.3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { auditContext, merchantOf } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import {
  AddPasskeyBody,
  PasskeyData,
  PasskeyList,
  PasskeyParams,
  TurnOffBody,
  WebAuthnOptions,
} from './factors.schemas.ts';
import { ACCOUNT, SIGNED_IN, checkTurnOff } from './factor-request.ts';
import { factors, passkeys, type SignInLimits } from '../identity/index.ts';

export const passkeyRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (plugin, { signIns }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/auth/passkeys/options',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'passkeyRegistrationOptions',
        summary: 'Options to register a passkey',
        tags: ACCOUNT,
        description: 'WebAuthn creation options for `navigator.credentials.create()`, valid 5 minutes.',
        body: Type.Optional(EmptyBody),
        response: { 200: WebAuthnOptions, ...errors(401) },
      },
    },
    async (request) => ({ data: await passkeys.registrationOptions(ctx, merchantOf(request).userId) }),
  );

  app.post(
    '/auth/passkeys',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'addPasskey',
        summary: 'Register a passkey',
        tags: ACCOUNT,
        description: 'The browser’s answer to the options. Audit `member.passkey_added`.',
        body: AddPasskeyBody,
        response: { 201: PasskeyData, ...errors(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const data = await passkeys.addPasskey(ctx, auditContext(request), request.body);
      // The authenticator just proved itself: as after a TOTP enrolment, the step-up window opens.
      await factors.markSteppedUp(ctx, merchantOf(request).sessionId);
      return reply.code(201).send({ data });
    },
  );

  app.get(
    '/auth/passkeys',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'listPasskeys',
        summary: 'The signed-in user’s passkeys',
        tags: ACCOUNT,
        response: { 200: PasskeyList, ...errors(401) },
      },
    },
    async (request) => {
      const items = await passkeys.passkeysOfUser(ctx, merchantOf(request).userId);
      return { data: { items, count: items.length, has_more: false, next_cursor: null } };
    },
  );

  app.delete(
    '/auth/passkeys/:passkeyID',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'removePasskey',
        summary: 'Remove a passkey',
        tags: ACCOUNT,
        description:
          'Needs the password and a current factor, as turning TOTP off. Audit `member.passkey_removed`.',
        params: PasskeyParams,
        body: TurnOffBody,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await passkeys.findPasskey(ctx, merchantOf(request).userId, request.params.passkeyID);
      await checkTurnOff(signIns, ctx, request, request.body);
      await passkeys.removePasskey(ctx, auditContext(request), request.params.passkeyID);
      return reply.code(204).send(null);
    },
  );
};
