// The second step of a sign-in, and a sign-in with a passkey alone (API.md section 11.3). Every check of a
// code or a recovery code draws on the sign-in failure budgets (the identity module's sign-in.service.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { requestMeta } from '../../http/request.ts';
import { errors } from '../../http/schemas.ts';
import { AppError } from '../../lib/errors.ts';
import { AssertionOptionsBody, LoginMfaBody, LoginPasskeyBody, WebAuthnOptions } from './factors.schemas.ts';
import { ACCOUNT, oneFactor, origin } from './factor-request.ts';
import {
  passkeys,
  readMfaUser,
  Session,
  setSignInCookies,
  signInWithFactor,
  signInWithPasskey,
  type SignInLimits,
} from '../identity/index.ts';

export const signInFactorRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (
  plugin,
  { signIns },
) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/auth/login/mfa',
    {
      config: { anonymous: true },
      schema: {
        operationId: 'logInSecondStep',
        summary: 'Sign in: the second factor',
        tags: ACCOUNT,
        description:
          'The `mfa_token` of POST /auth/login and one factor: `code` (TOTP), `recovery_code` or `passkey` ' +
          '(an assertion for the options of POST /auth/login/passkey/options with the `mfa_token`). Answers ' +
          'like login. Wrong factors draw on the sign-in failure budgets (429 with Retry-After past them).',
        body: LoginMfaBody,
        response: { 200: Session, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const result = await signInWithFactor(signIns, ctx, {
        ...origin(request),
        ...requestMeta(request),
        ip: request.ip,
        mode: request.mode,
        mfaToken: request.body.mfa_token,
        proof: oneFactor(request.body),
      });
      setSignInCookies(reply, ctx.config, result);
      return { data: result.session };
    },
  );

  app.post(
    '/auth/login/passkey/options',
    {
      // Anyone may ask, and each answer stores a challenge (for 5 minutes): 30 a minute per address.
      config: { anonymous: true, rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        operationId: 'passkeyAssertionOptions',
        summary: 'Options for a passkey sign-in',
        tags: ACCOUNT,
        description:
          'WebAuthn request options for `navigator.credentials.get()`. Without a body, for a sign-in with a ' +
          'passkey alone (discoverable passkeys); with the `mfa_token` of a sign-in, naming its passkeys.',
        body: Type.Optional(AssertionOptionsBody),
        response: { 200: WebAuthnOptions, ...errors(400, 401) },
      },
    },
    async (request) => {
      const token = request.body?.mfa_token;
      const userId = token === undefined ? null : readMfaUser(signIns, ctx, token);
      if (userId === undefined) {
        throw new AppError('invalid_credentials', 'The sign-in has expired or is not valid: sign in again.');
      }
      return { data: await passkeys.assertionOptions(ctx, userId) };
    },
  );

  app.post(
    '/auth/login/passkey',
    {
      config: { anonymous: true },
      schema: {
        operationId: 'logInWithPasskey',
        summary: 'Sign in with a passkey alone',
        tags: ACCOUNT,
        description: 'The assertion for the options of POST /auth/login/passkey/options. Answers like login.',
        body: LoginPasskeyBody,
        response: { 200: Session, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const result = await signInWithPasskey(signIns, ctx, {
        ...origin(request),
        userAgent: requestMeta(request).userAgent,
        assertion: request.body.passkey,
      });
      setSignInCookies(reply, ctx.config, result);
      return { data: result.session };
    },
  );
};
