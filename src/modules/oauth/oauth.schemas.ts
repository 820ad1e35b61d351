import { Type } from 'typebox';
import { Data, List, Mode, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

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

/** An installation as its app sees it with an app token (API.md section 12.3). */
export const AppInstallation = Type.Object(
  {
    grant_id: Type.String({ description: 'The installation (grant_...), as app deliveries name it.' }),
    merchant_id: Type.String({ description: 'The merchant that installed the app.' }),
    store_id: Type.Union([Type.String(), Type.Null()], { description: 'The store the app acts on.' }),
    mode: Mode,
    scopes: Type.Array(Type.String(), {
      description: "Effective: granted, within the app's allowed scopes.",
    }),
    installed_at: Timestamp,
    last_used_at: NullableTimestamp,
  },
  { title: 'AppInstallation' },
);
export const AppInstallationsPage = List(AppInstallation);
