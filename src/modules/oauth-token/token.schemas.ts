import { Type } from 'typebox';

const param = (description: string) => Type.Optional(Type.String({ description }));

/** Form or JSON, the same fields; unknown parameters are ignored (RFC 6749 3.2). */
export const TokenBody = Type.Object(
  {
    grant_type: param('authorization_code, refresh_token, or client_credentials (an app token)'),
    code: param('The authorization code (svc_oac_...).'),
    redirect_uri: param('The redirect URI of the authorization request.'),
    code_verifier: param('The PKCE verifier.'),
    refresh_token: param('The refresh token (svc_ort_...).'),
    scope: param(
      'refresh_token grant: a subset of the granted scopes; client_credentials: app:installations.',
    ),
    client_id: param('client_secret_post: the client id.'),
    client_secret: param('client_secret_post: the client secret.'),
  },
  { additionalProperties: true },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Unsafe<'Bearer' | 'DPoP'>({
      type: 'string',
      enum: ['Bearer', 'DPoP'],
      description: '`DPoP` when the request carried a DPoP proof: the access token is bound to its key.',
    }),
    expires_in: Type.Integer(),
    refresh_token: Type.Optional(
      Type.String({ description: 'Not with client_credentials: an app token is not refreshed.' }),
    ),
    scope: Type.String({
      description:
        "The effective scope: granted, within the app's allowed scopes; `app:installations` for an app token.",
    }),
    merchant_id: Type.Optional(
      Type.String({ description: 'The merchant that installed the app (not with client_credentials).' }),
    ),
    store_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'The store the app acts on: the `storeID` of the cart route. Also in GET /stores. Not with client_credentials.',
      }),
    ),
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
