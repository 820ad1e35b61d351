// The OpenAPI document's shared components: the security schemes that routes name (route-security.ts), the
// header parameters and the response headers every operation of an interface shares (openapi.ts adds them).
export function components(): Record<string, unknown> {
  return {
    securitySchemes: {
      merchantSession: {
        type: 'http',
        scheme: 'bearer',
        description: 'A merchant session token (`svc_mst_...`) from POST /api/v1/merchant/auth/login.',
      },
      merchantCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'svc_session',
        description: 'The session cookie the dashboard uses; writes must come from the service’s own origin.',
      },
      publicBearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A secret key (`svc_test_sk_...`, `svc_live_sk_...`, servers only), a publishable key (`..._pk_...`, ' +
          'read-only, safe in browsers) or an OAuth access token (`svc_oat_...`). The credential decides the mode.',
      },
      internalToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The service’s internal token (SVC_INTERNAL_TOKEN), for the platform’s own services.',
      },
      clientSecretBasic: {
        type: 'http',
        scheme: 'basic',
        description:
          'client_secret_basic: the client id and secret; client_secret_post sends them in the body.',
      },
      oauth2: {
        type: 'oauth2',
        description:
          'Authorization code with PKCE (S256 required); refresh tokens rotate on every use. Client ' +
          'credentials: an app token for the app’s own installations.',
        flows: {
          authorizationCode: {
            // given by the routes that declare their step of the flow (`config.oauthFlow`), once all are known
            authorizationUrl: '',
            tokenUrl: '',
            refreshUrl: '',
            scopes: {
              'public:read': 'Read store data (GET requests)',
              'public:write': 'Change store data (POST, PUT, PATCH, DELETE)',
              'public:*': 'Read and change store data',
            },
          },
          // An app token: the app's own installations, no store's data (API.md section 12.3).
          clientCredentials: {
            tokenUrl: '',
            scopes: { 'app:installations': "List the app's installations and uninstall it from a store" },
          },
        },
      },
    },
    parameters: {
      XSvcMode: {
        name: 'X-Svc-Mode',
        in: 'header',
        required: false,
        description:
          'Merchant interface: the mode whose resources are read or created (default test). Public interface: ' +
          'the credential decides; a header that disagrees answers 400 mode_mismatch.',
        schema: { type: 'string', enum: ['test', 'live'] },
      },
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes the POST safe to retry: the first answer is kept 24 h per principal and replayed for the same ' +
          'request; another request with the same key answers 409 idempotency_conflict.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
      XRequestId: {
        name: 'X-Request-Id',
        in: 'header',
        required: false,
        description: 'Your id for this request (1-64 of [A-Za-z0-9._-]), echoed back; otherwise one is made.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
      },
    },
    headers: {
      XRequestId: { description: 'The id of this request: quote it to support.', schema: { type: 'string' } },
      IdempotentReplayed: {
        description: '`true` when this answer is the stored answer of an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
      RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
      RateLimit: {
        description: 'The remaining quota and when it resets (IETF RateLimit header fields draft).',
        schema: { type: 'string' },
      },
      RateLimitPolicy: {
        description: 'The quota policy of the caller (IETF RateLimit header fields draft).',
        schema: { type: 'string' },
      },
    },
  };
}
