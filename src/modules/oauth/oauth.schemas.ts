import { Type } from 'typebox';
import { Data, List, Mode, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

const param = (description: string) => Type.Optional(Type.String({ description }));

/** Form or JSON, the same fields; unknown parameters are ignored (RFC 6749 3.2). */
export const TokenBody = Type.Object(
  {
    grant_type: param('authorization_code or refresh_token'),
    code: param('The authorization code (svc_oac_...).'),
    redirect_uri: param('The redirect URI of the authorization request.'),
    code_verifier: param('The PKCE verifier.'),
    refresh_token: param('The refresh token (svc_ort_...).'),
    scope: param('refresh_token grant: a subset of the granted scopes.'),
    client_id: param('client_secret_post: the client id.'),
    client_secret: param('client_secret_post: the client secret.'),
  },
  { additionalProperties: true },
);

export const RevokeBody = Type.Object(
  {
    token: param('The access or refresh token to revoke.'),
    token_type_hint: param('access_token or refresh_token (a hint only).'),
    client_id: param('client_secret_post: the client id.'),
    client_secret: param('client_secret_post: the client secret.'),
  },
  { additionalProperties: true },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    refresh_token: Type.String(),
    scope: Type.String({ description: "The effective scope: granted, within the app's allowed scopes." }),
    merchant_id: Type.String({ description: 'The merchant that installed the app.' }),
    store_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The store the app acts on: the `storeID` of the cart route. Also in GET /stores.',
    }),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'The mode of the app.' }),
  },
  { title: 'TokenResponse' },
);

export const OAuthErrorBody = Type.Object(
  {
    error: Type.String(),
    error_description: Type.Optional(Type.String()),
  },
  { title: 'OAuthError' },
);

const queryParam = (description: string) => Type.Optional(Type.Unknown({ description }));

/**
 * Not typed: a malformed or repeated parameter must reach the handler, which answers per RFC 6749 4.1.2.1.
 * The parameters the server requires are `required` here for the OpenAPI document only: the route does not
 * validate its query with this schema (a missing one is an error redirect or page, not a 400 envelope).
 */
export const AuthorizeQuery = Type.Object(
  {
    response_type: Type.Unknown({ description: 'code (the only response type).' }),
    client_id: Type.Unknown({ description: 'The app client_id.' }),
    redirect_uri: Type.Unknown({ description: 'One of the app redirect URIs, exactly as registered.' }),
    scope: queryParam('Space-separated; default: the app allowed scopes.'),
    state: queryParam('Returned unchanged with the code; recommended (CSRF protection of the callback).'),
    code_challenge: Type.Unknown({ description: 'PKCE: base64url(SHA-256(code_verifier)), 43 characters.' }),
    code_challenge_method: Type.Unknown({ description: 'S256 (plain is refused).' }),
  },
  { additionalProperties: true },
);

export const ConsentInfo = Data(
  Type.Object({
    consent_id: Type.String(),
    app: Type.Object({
      id: Type.String(),
      name: Type.String(),
      client_id: Type.String(),
      developer: Type.String(),
      mode: Mode,
    }),
    scopes: Type.Array(Type.String()),
    redirect_uri: Type.String(),
  }),
);

/** The decision as an API call: the session authenticates it, so it needs no CSRF token (one is ignored). */
export const ConsentJson = Type.Object(
  {
    consent_id: Type.String({ minLength: 1, maxLength: 64 }),
    approve: Type.Boolean(),
    csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);

/** The consent page's form: its CSRF token, checked by the handler, is what makes it valid. */
export const ConsentForm = Type.Object(
  {
    consent_id: Type.Optional(Type.String()),
    approve: Type.Optional(Type.String()),
    csrf_token: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ConsentBody = {
  content: {
    'application/json': { schema: ConsentJson },
    'application/x-www-form-urlencoded': { schema: ConsentForm },
  },
};

export const ConsentAnswer = Data(Type.Object({ redirect_to: Type.String() }));

const Url = (description: string) => Type.String({ format: 'uri', description });
const Strings = (description: string) => Type.Array(Type.String(), { description });

/** RFC 8414 authorization server metadata; fields a later version adds are extra, per RFC 8414 section 3.2. */
export const Metadata = Type.Object(
  {
    issuer: Url('The issuer identifier; every URL below starts with it.'),
    authorization_endpoint: Url('Where the merchant approves an install.'),
    token_endpoint: Url('Code exchange and refresh.'),
    revocation_endpoint: Url('RFC 7009 revocation.'),
    scopes_supported: Strings('Every scope an app may request.'),
    response_types_supported: Strings('Always `code`.'),
    response_modes_supported: Strings('Always `query`.'),
    grant_types_supported: Strings('`authorization_code` and `refresh_token`.'),
    code_challenge_methods_supported: Strings('PKCE methods: `S256` only.'),
    token_endpoint_auth_methods_supported: Strings('How a client authenticates at the token endpoint.'),
    revocation_endpoint_auth_methods_supported: Strings(
      'How a client authenticates at the revocation endpoint.',
    ),
    authorization_response_iss_parameter_supported: Type.Boolean({
      description: 'RFC 9207: redirects carry `iss`.',
    }),
    service_documentation: Url('The API reference.'),
  },
  { title: 'Metadata', additionalProperties: true },
);

export const Connection = Type.Object(
  {
    id: Type.String(),
    app: Type.Object({
      id: Type.String(),
      name: Type.String(),
      client_id: Type.String(),
      developer_name: Type.String({ description: 'The account that publishes the app.' }),
    }),
    scopes: Type.Array(Type.String()),
    events: Type.Array(Type.String(), {
      description:
        'The event types the app receives from this account now, through its webhooks (API.md 11.1); never where they go. Without read access only lifecycle (`app.*`) and privacy types.',
    }),
    mode: Mode,
    created_at: Timestamp,
    last_used_at: NullableTimestamp,
  },
  { title: 'Connection' },
);
export const ConnectionsPage = List(Connection);
export const GrantParams = Type.Object({ grantID: Type.String({ minLength: 1, maxLength: 64 }) });

export const InstallsAnswer = Data(
  Type.Object({
    app_id: Type.String(),
    stores: Type.Integer({ description: 'Stores that installed the app and have not disconnected it.' }),
  }),
);

export const Installation = Type.Object(
  {
    id: Type.String({ description: 'The grant (grant_...), as app deliveries name it in `grant_id`.' }),
    merchant_id: Type.String(),
    store: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'The store the app acts on.',
    }),
    scopes: Type.Array(Type.String(), {
      description: "Effective: granted, within the app's allowed scopes.",
    }),
    mode: Mode,
    installed_at: Timestamp,
    last_used_at: NullableTimestamp,
  },
  { title: 'Installation' },
);
export const InstallationsPage = List(Installation);
export const AppParams = Type.Object({ appID: Type.String({ minLength: 1, maxLength: 64 }) });

/** RFC 7662 2.1: form or JSON; unknown parameters are ignored, as at the token endpoint. */
export const IntrospectBody = Type.Object(
  {
    token: param('The credential to check: a secret key, publishable key or access token.'),
    token_type_hint: param('access_token, secret_key or publishable_key (a hint only; the prefix decides).'),
    client_id: param('client_secret_post: the client id.'),
    client_secret: param('client_secret_post: the client secret.'),
  },
  { additionalProperties: true },
);

const seconds = (description: string) => Type.Optional(Type.Integer({ description }));

// Plain `enum` and type lists rather than TypeBox unions: a union (`anyOf`) makes fast-json-stringify run a
// validator per field on every answer, and this answer is on a resource server's every request.
const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Optional(Type.Unsafe<T>({ type: 'string', enum: values, ...(description ? { description } : {}) }));

/** RFC 7662 2.2. Only `active` when the credential is not active, or not the asking client's. */
export const Introspection = Type.Object(
  {
    active: Type.Boolean(),
    token_type: oneOf(['access_token', 'secret_key', 'publishable_key'] as const),
    scope: Type.Optional(
      Type.String({ description: 'The effective scopes, space-separated, as the public API applies them.' }),
    ),
    client_id: Type.Optional(Type.String({ description: 'Access tokens: the app’s client id.' })),
    merchant_id: Type.Optional(Type.String({ description: 'The merchant whose data the credential opens.' })),
    store_id: Type.Optional(
      Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'The store it acts on.' }),
    ),
    mode: oneOf(['test', 'live'] as const),
    exp: seconds('Unix seconds when it stops working on its own (access tokens; keys with an expiry).'),
    iat: seconds('Unix seconds when it was made.'),
    sub: Type.Optional(Type.String({ description: 'The merchant id.' })),
    app_id: Type.Optional(Type.String({ description: 'Access tokens: the app.' })),
    key_id: Type.Optional(Type.String({ description: 'Keys: the key pair.' })),
  },
  { title: 'Introspection' },
);

/** RFC 7009 lets a client ignore the body; strict clients require JSON, so the answer is an empty object. */
export const RevocationAnswer = Type.Object({}, { title: 'RevocationAnswer', additionalProperties: false });
