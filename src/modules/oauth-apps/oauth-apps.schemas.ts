import { Type } from 'typebox';
import { Body, Data, List, Mode, PageQuery, PlainText, Scopes, Timestamp } from '../../http/schemas.ts';

const Name = PlainText({ minLength: 1, maxLength: 100 });
const Description = Type.Union([PlainText({ maxLength: 1000 }), Type.Null()]);
// Shape only; the rules of API.md section 3 (absolute, https or loopback http, no fragment) are checked by
// the service so that each failing URI is named in the error.
const RedirectUris = Type.Array(PlainText({ minLength: 1, maxLength: 2048 }), {
  minItems: 1,
  maxItems: 10,
  uniqueItems: true,
});

const AuthMethod = Type.Union(
  [Type.Literal('client_secret_basic'), Type.Literal('client_secret_post'), Type.Literal('private_key_jwt')],
  {
    description:
      'How the app authenticates at the token, revocation and introspection endpoints: its client secret ' +
      '(Basic or in the body, either way), or a JWT signed with one of its `jwks` (RFC 7523).',
  },
);
// A JWK's members depend on its type (RFC 7517): checked by the service, which names the failing key.
const Jwk = Type.Object({ kty: Type.String() }, { additionalProperties: true });
const Jwks = Type.Object(
  { keys: Type.Array(Jwk, { minItems: 1, maxItems: 5 }) },
  {
    additionalProperties: false,
    description: 'Up to 5 public keys (Ed25519, P-256 or RSA of at least 2048 bits) for private_key_jwt.',
  },
);

export const App = Type.Object(
  {
    id: Type.String({ examples: ['app_01jf8z2k3m4n5p6q7r8s9t0v1w2x'] }),
    client_id: Type.String({ examples: ['svc_ca_...'] }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    redirect_uris: Type.Array(Type.String()),
    allowed_scopes: Type.Array(Type.String()),
    mode: Mode,
    client_secret_last4: Type.String(),
    token_endpoint_auth_method: AuthMethod,
    jwks: Type.Union([Jwks, Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'OAuthApp', title: 'OAuthApp' },
);

export const AppWithSecret = Type.Object(
  {
    ...App.properties,
    client_secret: Type.String({ description: 'Shown once: on create and on rotate-secret.' }),
  },
  { title: 'OAuthAppWithSecret' },
);

export const CreateAppBody = Body({
  name: Name,
  description: Type.Optional(Description),
  redirect_uris: RedirectUris,
  allowed_scopes: Scopes,
});

export const UpdateAppBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  redirect_uris: Type.Optional(RedirectUris),
  allowed_scopes: Type.Optional(Scopes),
  token_endpoint_auth_method: Type.Optional(AuthMethod),
  jwks: Type.Optional(Type.Union([Jwks, Type.Null()])),
});

export const RotateSecretBody = Body({
  previous_secret_expires_in: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 0 })),
});

export const AppParams = Type.Object({ appID: Type.String({ minLength: 1, maxLength: 64 }) });
export const AppsQuery = Type.Object(PageQuery);
export const AppData = Data(App);
export const AppSecretData = Data(AppWithSecret);
export const AppsPage = List(App);
