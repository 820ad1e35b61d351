import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { merchantOf, requestMeta } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import type { LastUses } from '../../lib/last-uses.ts';
import {
  LoginBody,
  Me,
  SecondStep,
  Session,
  SessionList,
  SessionParams,
  SignupBody,
  SwitchBody,
} from './account.schemas.ts';
import * as service from './account.service.ts';
import { endSession, sessionsOfUser, switchMerchant } from './sessions.service.ts';
import { signIn } from './sign-in.service.ts';
import { type SignInLimits } from './sign-in-limits.ts';
import { clearSessionCookie, deviceCookieOf, setSessionCookie, setSignInCookies } from './sign-in.cookies.ts';

// Signup creates accounts: 20 a minute per address is plenty for people. Sign-in has failure budgets of its
// own (sign-in.service.ts), which never count a right password.
const SIGNUP_LIMIT = { rateLimit: { max: 20, timeWindow: '1 minute' } };

export const accountRoutes: FastifyPluginAsync<{ signIns: SignInLimits; uses: LastUses }> = async (
  plugin,
  { signIns, uses },
) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/auth/signup',
    {
      config: { anonymous: true, ...SIGNUP_LIMIT },
      schema: {
        operationId: 'signUp',
        summary: 'Create a merchant account and sign in',
        tags: ['Merchant account'],
        description: 'Creates the merchant, its owner user and a first store. Off when SVC_SIGNUP=off (404).',
        body: SignupBody,
        response: { 201: Session, ...errors(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const { merchant_name, email, password } = request.body;
      const session = await service.signup(
        app.ctx,
        { merchantName: merchant_name, email, password },
        requestMeta(request),
      );
      setSessionCookie(reply, app.ctx.config, session);
      return reply.code(201).send({ data: session });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { anonymous: true },
      schema: {
        operationId: 'logIn',
        summary: 'Sign in',
        tags: ['Merchant account'],
        description:
          'Answers a session token and sets the svc_session cookie; for a user with a second factor, ' +
          '`mfa_required` and an `mfa_token` for POST /auth/login/mfa instead, and no session.',
        body: LoginBody,
        response: { 200: Type.Union([Session, SecondStep]), ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const result = await signIn(signIns, app.ctx, {
        email: request.body.email,
        password: request.body.password,
        ip: request.ip,
        userAgent: requestMeta(request).userAgent,
        device: deviceCookieOf(request.cookies),
        log: request.log,
      });
      if ('mfa' in result) return { data: result.mfa };
      setSignInCookies(reply, app.ctx.config, result);
      return { data: result.session };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { role: 'viewer', enrolment: true },
      schema: {
        operationId: 'logOut',
        summary: 'End the session',
        tags: ['Merchant account'],
        body: Type.Optional(EmptyBody),
        response: { 204: Type.Null(), ...errors(401) },
      },
    },
    async (request, reply) => {
      await service.logout(app.ctx, merchantOf(request));
      clearSessionCookie(reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/me',
    {
      config: { role: 'viewer', enrolment: true },
      schema: {
        operationId: 'getMe',
        summary: 'The signed-in user, merchant and stores',
        tags: ['Merchant account'],
        description: 'With the role of this session and every membership of the user (API.md section 11.2).',
        response: { 200: Me, ...errors(401) },
      },
    },
    async (request) => ({ data: await service.me(app.ctx, merchantOf(request)) }),
  );

  app.post(
    '/auth/switch',
    {
      config: { role: 'viewer', enrolment: true },
      schema: {
        operationId: 'switchMerchant',
        summary: 'Open another of the user’s memberships',
        tags: ['Merchant account'],
        description:
          'Answers like login, with a session of the user’s membership in `merchant_id`, which replaces the ' +
          'session of this call (a session opens one membership). A merchant the user does not belong to: 404.',
        body: SwitchBody,
        response: { 200: Session, ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const session = await switchMerchant(
        app.ctx,
        merchantOf(request),
        request.body.merchant_id,
        requestMeta(request),
      );
      setSessionCookie(reply, app.ctx.config, session);
      return { data: session };
    },
  );

  app.get(
    '/auth/sessions',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'listSessions',
        summary: 'The signed-in user’s sessions',
        tags: ['Merchant account'],
        description:
          'Every live session of the user, in every merchant, the newest first, with where it was opened and ' +
          'when it was last used; `current` marks the session of this call.',
        response: { 200: SessionList, ...errors(401) },
      },
    },
    async (request) => {
      const items = await sessionsOfUser(app.ctx, uses, merchantOf(request));
      return { data: { items, count: items.length, has_more: false, next_cursor: null } };
    },
  );

  app.delete(
    '/auth/sessions/:sessionID',
    {
      config: { role: 'viewer' },
      schema: {
        operationId: 'endSession',
        summary: 'End one of the user’s sessions',
        tags: ['Merchant account'],
        description: 'The session stops working at once, on every process. Another user’s session: 404.',
        params: SessionParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await endSession(app.ctx, merchantOf(request), request.params.sessionID);
      return reply.code(204).send(null);
    },
  );
};
