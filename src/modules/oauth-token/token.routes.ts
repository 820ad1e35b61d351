// POST /oauth/token: form or JSON in, RFC 6749 JSON out (`{"error","error_description"}` rather than the API
// envelope), never cached. This plugin scope has its own body parser and error handler (rfc-errors.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { acceptForms } from '../../http/forms.ts';
import { requestMeta } from '../../http/request.ts';
import { SECURITY } from '../../http/route-security.ts';
import { installedStoreId } from '../merchants/index.ts';
import { authenticateClient, param } from './client-auth.ts';
import { OAuthError } from './oauth.errors.ts';
import { NO_STORE, rfcErrors } from './rfc-errors.ts';
import { OAuthErrorBody, TokenBody, TokenResponse } from './token.schemas.ts';
import { exchangeCode, refreshTokens } from './token.service.ts';
import { issueAppToken } from './client-credentials.ts';
import { bound, dpopKey } from './dpop-binding.ts';
import type { TokenState } from './token.state.ts';

const GRANT_TYPES: ReadonlySet<string> = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
]);

export const tokenRoutes =
  (state: TokenState): FastifyPluginAsync =>
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
          summary: 'Exchange a code or a refresh token for tokens, or get an app token (RFC 6749)',
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
        if (!GRANT_TYPES.has(grantType)) {
          throw new OAuthError(
            'unsupported_grant_type',
            'grant_type must be authorization_code, refresh_token or client_credentials.',
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
        // RFC 9449 5: a proof binds the access token issued now to its key
        const jkt = await dpopKey(app.ctx, request);
        if (grantType === 'client_credentials') {
          const answer = await issueAppToken(app.ctx, client, params, jkt);
          app.ctx.metrics.tokenGrants.labels(grantType, 'issued').inc();
          return answer;
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
        if (jkt !== undefined) tokens = await bound(app.ctx, tokens, jkt);
        app.ctx.metrics.tokenGrants.labels(grantType, 'issued').inc();
        // The installation, so that the app knows which store it acts on (Stripe's `stripe_user_id`).
        const storeId = (await installedStoreId(state.firstStores, app.ctx, tokens.merchant_id)) ?? null;
        return { ...tokens, store_id: storeId, mode: client.mode };
      },
    );
  };
