// A user's factors at a glance, TOTP on and off, and its recovery codes (API.md section 11.3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { auditContext, merchantOf } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import { STEP_UP_WINDOW_MS, steppedUp } from '../../http/second-factor.ts';
import { iso } from '../../lib/time.ts';
import { ConfirmTotpBody, Factors, RecoveryCodes, TotpEnrolment, TurnOffBody } from './factors.schemas.ts';
import { ACCOUNT, SIGNED_IN, checkTurnOff, noStore } from './factor-request.ts';
import { factors, type SignInLimits } from '../identity/index.ts';

export const totpRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (plugin, { signIns }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/auth/mfa',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'getSecondFactors',
        summary: 'The signed-in user’s second factors',
        tags: ACCOUNT,
        description:
          'Whether TOTP is on, how many passkeys and unused recovery codes, and the step-up window.',
        response: { 200: Factors, ...errors(401) },
      },
    },
    async (request) => {
      const who = merchantOf(request);
      const until = steppedUp(who, ctx.clock.now()) ? who.steppedUpAt! + STEP_UP_WINDOW_MS : null;
      const factorsNow = await factors.factorsOf(ctx, who.userId);
      return { data: { ...factorsNow, stepped_up_until: until === null ? null : iso(new Date(until)) } };
    },
  );

  app.post(
    '/auth/mfa/totp',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'startTotpEnrolment',
        summary: 'Start TOTP enrolment',
        tags: ACCOUNT,
        description:
          'A new TOTP secret (RFC 6238: 6 digits, 30 s), not in force until POST /auth/mfa/totp/confirm. ' +
          'Cache-Control: no-store. TOTP already on: 409.',
        body: Type.Optional(EmptyBody),
        response: { 200: TotpEnrolment, ...errors(401, 409) },
      },
    },
    async (request, reply) => {
      noStore(reply);
      return { data: await factors.startTotp(ctx, merchantOf(request).userId) };
    },
  );

  app.post(
    '/auth/mfa/totp/confirm',
    {
      config: SIGNED_IN,
      schema: {
        operationId: 'confirmTotpEnrolment',
        summary: 'Turn TOTP on',
        tags: ACCOUNT,
        description:
          'A current code of the new secret turns TOTP on and answers 10 single-use recovery codes, once ' +
          '(Cache-Control: no-store). Audit `member.mfa_enabled`.',
        body: ConfirmTotpBody,
        response: { 200: RecoveryCodes, ...errors(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const data = await factors.confirmTotp(ctx, auditContext(request), request.body.code);
      await factors.markSteppedUp(ctx, merchantOf(request).sessionId);
      noStore(reply);
      return { data };
    },
  );

  app.delete(
    '/auth/mfa/totp',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'turnOffTotp',
        summary: 'Turn TOTP off',
        tags: ACCOUNT,
        description:
          'Needs the password and a current factor (`code`, `recovery_code` or `passkey`; none after a step-up ' +
          'in the last 10 minutes). Recovery codes go with the last factor. Audit `member.mfa_disabled`.',
        body: TurnOffBody,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      await checkTurnOff(signIns, ctx, request, request.body);
      await factors.disableTotp(ctx, auditContext(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/mfa/recovery-codes',
    {
      config: { role: 'viewer', stepUp: 'always' },
      schema: {
        operationId: 'regenerateRecoveryCodes',
        summary: 'New recovery codes',
        tags: ACCOUNT,
        description:
          'Ten new single-use codes in place of the old ones, answered once (Cache-Control: no-store). Needs ' +
          'a step-up in the last 10 minutes.',
        body: Type.Optional(EmptyBody),
        response: { 200: RecoveryCodes, ...errors(401, 403, 409) },
      },
    },
    async (request, reply) => {
      noStore(reply);
      return { data: await factors.regenerateRecoveryCodes(ctx, auditContext(request)) };
    },
  );
};
