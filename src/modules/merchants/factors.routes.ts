// Second factors, the second step of a sign-in, a sign-in with a passkey alone, step-up, and the merchant's
// requirement of a factor (API.md section 11.3). Every check of a code or a recovery code goes through the
// sign-in budgets (sign-in.service.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { auditContext, merchantOf, requestMeta } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import { STEP_UP_WINDOW_MS, steppedUp } from '../../http/second-factor.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import { iso } from '../../lib/time.ts';
import {
  AddPasskeyBody,
  AssertionOptionsBody,
  ConfirmTotpBody,
  Factors,
  LoginMfaBody,
  LoginPasskeyBody,
  PasskeyData,
  PasskeyList,
  PasskeyParams,
  RecoveryCodes,
  Settings,
  SettingsBody,
  StepUp,
  StepUpBody,
  TotpEnrolment,
  TurnOffBody,
  WebAuthnOptions,
} from './factors.schemas.ts';
import * as factors from './factors.service.ts';
import { Session } from './merchants.schemas.ts';
import { deviceCookieOf, setSignInCookies } from './sign-in.cookies.ts';
import {
  confirmFactor,
  confirmPassword,
  readMfaUser,
  signInWithFactor,
  signInWithPasskey,
  type SignInLimits,
} from './sign-in.service.ts';

const ACCOUNT = ['Merchant account'];
const SIGNED_IN = { role: 'viewer', enrolment: true } as const;

/** Exactly one factor in a body: 400 otherwise. */
function oneFactor(body: factors.FactorProof): factors.FactorProof {
  const given = [body.code, body.recovery_code, body.passkey].filter((f) => f !== undefined).length;
  if (given !== 1) throw invalid('code', 'or recovery_code or passkey: give exactly one');
  return { code: body.code, recovery_code: body.recovery_code, passkey: body.passkey };
}

/** Where a check came from: its budgets (address, device cookie) and its log. */
const origin = (request: FastifyRequest) => ({
  ip: request.ip,
  device: deviceCookieOf(request.cookies),
  log: request.log,
});

const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

export const factorRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (plugin, { signIns }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  /** The password and a current factor of the signed-in user (a recent step-up counts): 403 otherwise. */
  async function checkTurnOff(
    request: FastifyRequest,
    body: { password: string } & factors.FactorProof,
  ): Promise<void> {
    const audit = auditContext(request);
    const check = { ...origin(request), check: 'disable_factor', audit } as const;
    if (!(await confirmPassword(signIns, ctx, { ...check, password: body.password }))) {
      throw new AppError('forbidden', 'The password is wrong.');
    }
    const noFactor = body.code === undefined && body.recovery_code === undefined && !body.passkey;
    if (noFactor && steppedUp(merchantOf(request), ctx.clock.now())) return;
    if (!(await confirmFactor(signIns, ctx, { ...check, proof: oneFactor(body) }))) {
      throw new AppError('forbidden', 'The second factor is wrong.');
    }
  }

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
      return { data: await factors.assertionOptions(ctx, userId) };
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
      await checkTurnOff(request, request.body);
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
    async (request) => ({ data: await factors.registrationOptions(ctx, merchantOf(request).userId) }),
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
      const data = await factors.addPasskey(ctx, auditContext(request), request.body);
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
      const items = await factors.passkeysOfUser(ctx, merchantOf(request).userId);
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
      await factors.findPasskey(ctx, merchantOf(request).userId, request.params.passkeyID);
      await checkTurnOff(request, request.body);
      await factors.removePasskey(ctx, auditContext(request), request.params.passkeyID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/step-up/options',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'stepUpPasskeyOptions',
        summary: 'Options for a passkey step-up',
        tags: ACCOUNT,
        description: 'WebAuthn request options naming the signed-in user’s passkeys.',
        body: Type.Optional(EmptyBody),
        response: { 200: WebAuthnOptions, ...errors(401) },
      },
    },
    async (request) => ({ data: await factors.assertionOptions(ctx, merchantOf(request).userId) }),
  );

  app.post(
    '/auth/step-up',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'stepUp',
        summary: 'Verify a second factor for sensitive actions',
        tags: ACCOUNT,
        description:
          'One factor (`code`, `recovery_code` or `passkey`) opens a 10-minute window in this session for the ' +
          'actions that answer 403 `step_up_required` (API.md section 11.3). Wrong factors draw on the ' +
          'sign-in failure budgets.',
        body: StepUpBody,
        response: { 200: StepUp, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const proof = oneFactor(request.body);
      const audit = auditContext(request);
      const method = await confirmFactor(signIns, ctx, {
        ...origin(request),
        check: 'step_up',
        audit,
        proof,
      });
      if (!method) throw new AppError('forbidden', 'The second factor is wrong.');
      const at = await factors.markSteppedUp(ctx, merchantOf(request).sessionId);
      const expires = new Date(Date.parse(at) + STEP_UP_WINDOW_MS);
      return { data: { method, stepped_up_at: at, expires_at: iso(expires) } };
    },
  );

  app.get(
    '/settings',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'getMerchantSettings',
        summary: 'The merchant’s settings',
        tags: ACCOUNT,
        response: { 200: Settings, ...errors(401) },
      },
    },
    async (request) => ({ data: await factors.merchantSettings(ctx, merchantOf(request).merchantId) }),
  );

  app.patch(
    '/settings',
    {
      config: { role: 'owner' },
      schema: {
        operationId: 'updateMerchantSettings',
        summary: 'Change the merchant’s settings',
        tags: ACCOUNT,
        description:
          '`require_mfa`: every member must have a second factor; one without may then only enrol (403 ' +
          '`mfa_enrolment_required` elsewhere). Owner only. Audit `merchant.settings_updated`.',
        body: SettingsBody,
        response: { 200: Settings, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({
      data: await factors.setRequireMfa(ctx, auditContext(request), request.body.require_mfa),
    }),
  );
};
