import { Type } from 'typebox';

const param = (description: string) => Type.Optional(Type.String({ description }));

export const RevokeBody = Type.Object(
  {
    token: param('The access or refresh token to revoke.'),
    token_type_hint: param('access_token or refresh_token (a hint only).'),
    client_id: param('client_secret_post: the client id.'),
    client_secret: param('client_secret_post: the client secret.'),
  },
  { additionalProperties: true },
);

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
    cnf: Type.Optional(
      Type.Object(
        { jkt: Type.String({ description: 'The RFC 7638 thumbprint of the key.' }) },
        { description: 'A DPoP-bound access token (RFC 9449 6.2): the key its calls must prove.' },
      ),
    ),
  },
  { title: 'Introspection' },
);

/** RFC 7009 lets a client ignore the body; strict clients require JSON, so the answer is an empty object. */
export const RevocationAnswer = Type.Object({}, { title: 'RevocationAnswer', additionalProperties: false });
