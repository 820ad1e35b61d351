// POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662, API.md section 10), with the token
// endpoint's form parser and RFC error bodies (the oauth-token module's), in a scope of their own. A caller whose
// authentication fails counts against the same per-client and per-address failure limits as at the token
// endpoint. Introspection is not audited: a resource server asks on every request it serves, and the audit log
// records changes, not reads.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.ts';
import { acceptForms } from '../../http/forms.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import { bearerToken } from '../../http/merchant-auth.ts';
import { requestMeta } from '../../http/request.ts';
import { SECURITY } from '../../http/route-security.ts';
import {
  authenticateClient,
  failedCaller,
  NO_STORE,
  OAuthError,
  OAuthErrorBody,
  param,
  rfcErrors,
  type ClientAuthLimits,
  type Params,
} from '../oauth-token/index.ts';
import { introspect, type Introspector } from './introspect.service.ts';
import type { IntrospectState } from './introspect.state.ts';
import { IntrospectBody, Introspection, RevocationAnswer, RevokeBody } from './introspect.schemas.ts';
import { revokeToken } from './revoke.service.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A platform service sends the internal token as a Bearer token (RFC 7662 2.1 allows either kind). */
function platformCaller(
  ctx: Context,
  limits: ClientAuthLimits,
  expected: Buffer | undefined,
  request: FastifyRequest,
): Introspector {
  const token = bearerToken(request);
  // Digests of equal length, compared in constant time: the answer time says nothing about the token.
  if (!expected || !token || !timingSafeEqual(digest(token), expected)) {
    const error = new OAuthError('invalid_token', 'The bearer token is not this service’s internal token.', {
      'www-authenticate': 'Bearer realm="svc", error="invalid_token"',
    });
    throw failedCaller(ctx, limits, error, request.ip);
  }
  return { kind: 'platform' };
}

async function callerOf(
  ctx: Context,
  limits: ClientAuthLimits,
  internal: Buffer | undefined,
  request: FastifyRequest,
  params: Params,
): Promise<Introspector> {
  const header = request.headers.authorization;
  if (header !== undefined && /^Bearer\b/i.test(header))
    return platformCaller(ctx, limits, internal, request);
  return { kind: 'client', app: await authenticateClient(ctx, limits, params, request) };
}

export const introspectRoutes =
  (state: IntrospectState, credentials: CredentialResolvers): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    acceptForms(app);
    rfcErrors(app);
    const rfcErrorsDoc = { 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody };
    const internal = app.ctx.config.internalToken ? digest(app.ctx.config.internalToken) : undefined;

    app.post(
      '/api/public/v1/oauth/revoke',
      {
        config: { security: SECURITY.client },
        schema: {
          operationId: 'revokeToken',
          summary: 'Revoke an access or refresh token (RFC 7009)',
          tags: ['OAuth protocol'],
          description: 'Answers 200 with `{}` whether or not the token existed.',
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          body: RevokeBody,
          response: { 200: RevocationAnswer, ...rfcErrorsDoc },
        },
      },
      async (request, reply) => {
        void reply.headers(NO_STORE);
        const params = request.body as Record<string, unknown>;
        const client = await authenticateClient(app.ctx, state.limits, params, request);
        await revokeToken(app.ctx, state.tokens, client, params, requestMeta(request));
        return {};
      },
    );

    app.post(
      '/api/public/v1/oauth/introspect',
      {
        config: { security: SECURITY.clientOrInternal },
        schema: {
          operationId: 'introspectToken',
          summary: 'Whether a credential is active, and what it opens (RFC 7662)',
          tags: ['OAuth protocol'],
          description:
            'An OAuth client (client authentication as at the token endpoint) may ask about its own access ' +
            'tokens; a platform service with the internal token about any secret key, publishable key or ' +
            'access token. Anything else answers `{"active":false}`.',
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          body: IntrospectBody,
          response: { 200: Introspection, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
        },
      },
      async (request, reply) => {
        void reply.headers(NO_STORE);
        const params = request.body as Params;
        const caller = await callerOf(app.ctx, state.limits, internal, request, params);
        const token = param(params, 'token');
        if (token === undefined) throw new OAuthError('invalid_request', 'token is required.');
        return introspect(state.apps, state.firstStores, app.ctx, credentials, caller, token);
      },
    );
  };
