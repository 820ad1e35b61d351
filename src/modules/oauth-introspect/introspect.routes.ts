// POST /oauth/introspect (RFC 7662, API.md section 10). Registered inside the token routes' scope, so it
// shares their form parser and RFC error bodies; a caller whose authentication fails counts against the same
// per-client and per-address failure limits as at the token endpoint. Not audited: a resource server asks on every
// request it serves, and the audit log records changes, not reads.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { OauthState } from './oauth.state.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import { bearerToken } from '../../http/merchant-auth.ts';
import { SECURITY } from '../../http/route-security.ts';
import {
  authenticateClient,
  failedCaller,
  param,
  type ClientAuthLimits,
  type Params,
} from './oauth-client-auth.ts';
import { introspect, type Introspector } from './oauth-introspect.service.ts';
import { OAuthError } from './oauth.errors.ts';
import { IntrospectBody, Introspection, OAuthErrorBody } from './oauth.schemas.ts';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
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
  (state: OauthState, credentials: CredentialResolvers): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const internal = app.ctx.config.internalToken ? digest(app.ctx.config.internalToken) : undefined;
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
