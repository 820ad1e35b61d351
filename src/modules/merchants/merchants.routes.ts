import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { merchantOf } from '../../http/request.ts';
import { EmptyBody, errors } from '../../http/schemas.ts';
import { LoginBody, Me, Session, SignupBody } from './merchants.schemas.ts';
import * as service from './merchants.service.ts';
import { signIn, type SignInLimits } from './sign-in.service.ts';
import { clearSessionCookie, deviceCookieOf, setSessionCookie, setSignInCookies } from './sign-in.cookies.ts';

// Signup creates accounts: 20 a minute per address is plenty for people. Sign-in has failure budgets of its
// own (sign-in.service.ts), which never count a right password.
const SIGNUP_LIMIT = { rateLimit: { max: 20, timeWindow: '1 minute' } };

export const merchantRoutes: FastifyPluginAsync<{ signIns: SignInLimits }> = async (plugin, { signIns }) => {
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
      const session = await service.signup(app.ctx, { merchantName: merchant_name, email, password });
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
        description: 'Answers a session token and sets the svc_session cookie.',
        body: LoginBody,
        response: { 200: Session, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const result = await signIn(signIns, app.ctx, {
        email: request.body.email,
        password: request.body.password,
        ip: request.ip,
        device: deviceCookieOf(request.cookies),
        log: request.log,
      });
      setSignInCookies(reply, app.ctx.config, result);
      return { data: result.session };
    },
  );

  app.post(
    '/auth/logout',
    {
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
      schema: {
        operationId: 'getMe',
        summary: 'The signed-in user, merchant and stores',
        tags: ['Merchant account'],
        response: { 200: Me, ...errors(401) },
      },
    },
    async (request) => ({ data: await service.me(app.ctx, merchantOf(request)) }),
  );
};
