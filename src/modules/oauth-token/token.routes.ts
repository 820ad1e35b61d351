// POST /oauth/token and /oauth/revoke: form or JSON in, RFC 6749 JSON out (`{"error","error_description"}`
// rather than the API envelope), never cached. This plugin scope has its own body parser and error handler.
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requestMeta } from '../../http/request.ts';
import { SECURITY } from '../../http/route-security.ts';
import { AppError } from '../../lib/errors.ts';
import { isConnectionLoss, RETRY_AFTER_SECONDS } from '../../db/connection-loss.ts';
import { authenticateClient, param } from './oauth-client-auth.ts';
import { acceptForms } from './oauth-forms.ts';
import type { OauthState } from './oauth.state.ts';
import { OAuthError } from './oauth.errors.ts';
import { OAuthErrorBody, RevocationAnswer, RevokeBody, TokenBody, TokenResponse } from './oauth.schemas.ts';
import { introspectRoutes } from './oauth-introspect.routes.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import { exchangeCode, refreshTokens, revokeToken } from './oauth-token.service.ts';
import { installedStoreId } from '../merchants/index.ts';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function toOAuthError(err: FastifyError | Error, request: FastifyRequest): OAuthError {
  if (err instanceof OAuthError) return err;
  const fe = err as FastifyError & { validation?: { instancePath: string }[] };
  if (fe.validation) {
    const field = fe.validation[0]?.instancePath.replace(/^\//, '') || 'body';
    return new OAuthError('invalid_request', `${field} must be given once, as a string.`);
  }
  if (err instanceof AppError && err.status < 500) {
    // Text the database cannot store (src/http/text-guard.ts): the client's own credentials fail client
    // authentication, anything else is a malformed request.
    const field = err.details?.[0]?.field;
    if (field === 'client_id' || field === 'client_secret') {
      return new OAuthError('invalid_client', `Client authentication failed: ${err.message}`);
    }
    return new OAuthError('invalid_request', err.message);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new OAuthError('invalid_request', 'Send the body as application/x-www-form-urlencoded or JSON.');
  }
  if (fe.statusCode === 429) return new OAuthError('rate_limited', 'Too many requests; retry later.');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new OAuthError('invalid_request', 'The request is malformed.');
  }
  if (isConnectionLoss(err)) {
    request.log.warn({ err: err.message.split('\n')[0] }, 'database unavailable');
    return new OAuthError('temporarily_unavailable', 'The service is briefly unavailable; retry later.', {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }
  request.log.error({ err }, 'oauth request failed');
  return new OAuthError('server_error', 'Something went wrong on our side; retry later.');
}

function rfcErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const error = toOAuthError(err, request);
    return reply
      .code(error.status)
      .headers({ ...error.headers, ...NO_STORE })
      .type('application/json; charset=utf-8')
      .send(error.toJSON());
  });
}

export const tokenRoutes =
  (state: OauthState, credentials: CredentialResolvers): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    acceptForms(app);
    rfcErrors(app);
    const rfcErrorsDoc = { 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody };

    app.post(
      '/api/public/v1/oauth/token',
      {
        config: { security: SECURITY.client, oauthFlow: 'token' },
        schema: {
          operationId: 'requestToken',
          summary: 'Exchange a code or a refresh token for tokens (RFC 6749)',
          tags: ['OAuth protocol'],
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          body: TokenBody,
          response: { 200: TokenResponse, ...rfcErrorsDoc },
        },
      },
      async (request, reply) => {
        void reply.headers(NO_STORE);
        const params = request.body as Record<string, unknown>;
        // The grant type first, as node-oidc-provider does: saying which grants exist reveals nothing.
        const grantType = param(params, 'grant_type');
        if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
        if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
          throw new OAuthError(
            'unsupported_grant_type',
            'grant_type must be authorization_code or refresh_token.',
          );
        }
        const client = await authenticateClient(app.ctx, state.limits, params, request);
        const mode = request.headers['x-svc-mode'];
        if (mode !== undefined && mode !== client.mode) {
          // A test app's code never yields a live token, and the reverse (API.md section 5).
          throw new OAuthError(
            'unauthorized_client',
            `This is a ${client.mode}-mode client: it only gets ${client.mode} tokens.`,
          );
        }
        const meta = requestMeta(request);
        let tokens: Awaited<ReturnType<typeof exchangeCode>>;
        try {
          tokens =
            grantType === 'authorization_code'
              ? await exchangeCode(app.ctx, state, client, params, meta)
              : await refreshTokens(app.ctx, state, client, params, meta);
        } catch (err) {
          const outcome = err instanceof OAuthError ? err.error : 'error';
          app.ctx.metrics.tokenGrants.labels(grantType, outcome).inc();
          throw err;
        }
        app.ctx.metrics.tokenGrants.labels(grantType, 'issued').inc();
        // The installation, so that the app knows which store it acts on (Stripe's `stripe_user_id`).
        const storeId = (await installedStoreId(state.firstStores, app.ctx, tokens.merchant_id)) ?? null;
        return { ...tokens, store_id: storeId, mode: client.mode };
      },
    );

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
        await revokeToken(app.ctx, state, client, params, requestMeta(request));
        return {};
      },
    );

    // A child scope: the form parser and the RFC error handler above apply to it too.
    await app.register(introspectRoutes(state, credentials));
  };
