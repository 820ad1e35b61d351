// RFC 8414 metadata, also at the OpenID discovery path where common clients look first.
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../../context.ts';
import { JWS_ALGORITHMS } from '../../lib/jws.ts';
import { SCOPES } from '../oauth-apps/index.ts';
import { Metadata } from './oauth.schemas.ts';

export function authorizationServerMetadata(ctx: Context) {
  const issuer = ctx.config.publicUrl;
  const auth = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];
  // private_key_jwt's algorithms (RFC 8414 2): those a registered key may sign with (src/lib/jws.ts)
  const algs = [...JWS_ALGORITHMS];
  return {
    issuer,
    authorization_endpoint: `${issuer}/api/public/v1/oauth/authorize`,
    token_endpoint: `${issuer}/api/public/v1/oauth/token`,
    revocation_endpoint: `${issuer}/api/public/v1/oauth/revoke`,
    introspection_endpoint: `${issuer}/api/public/v1/oauth/introspect`,
    // the store scopes an authorization request may name; app:installations comes with client_credentials alone
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: auth,
    token_endpoint_auth_signing_alg_values_supported: algs,
    revocation_endpoint_auth_methods_supported: auth,
    revocation_endpoint_auth_signing_alg_values_supported: algs,
    // The clients' methods; platform services send the internal token as a Bearer token (RFC 7662 2.1),
    // which is not a client authentication method and so is not listed (docs/decisions/0049-introspection-one-verification-path.md).
    introspection_endpoint_auth_methods_supported: auth,
    introspection_endpoint_auth_signing_alg_values_supported: algs,
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 5.1: a token request with a DPoP proof gets a token bound to its key
    dpop_signing_alg_values_supported: algs,
    service_documentation: `${issuer}/docs`,
  };
}

export const metadataRoutes: FastifyPluginAsync = async (app) => {
  const document = authorizationServerMetadata(app.ctx);
  const operations = [
    {
      path: '/.well-known/oauth-authorization-server',
      operationId: 'getAuthorizationServerMetadata',
      summary: 'Authorization server metadata (RFC 8414)',
    },
    {
      path: '/.well-known/openid-configuration',
      operationId: 'getOpenIdConfiguration',
      summary: 'The same metadata, where common clients look first',
    },
  ];
  for (const { path, operationId, summary } of operations) {
    const schema = { operationId, summary, tags: ['OAuth protocol'], response: { 200: Metadata } };
    app.get(path, { schema }, async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return document;
    });
  }
};
