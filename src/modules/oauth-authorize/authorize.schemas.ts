import { Type } from 'typebox';
import { Data, Mode } from '../../http/schemas.ts';

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
