import { Type } from 'typebox';
import { List, Mode, PageQuery, Timestamp } from '../../http/schemas.ts';
import { AuditEntryObject } from '../audit/index.ts';
import { Delivery } from '../dev-loop/index.ts';

const REQUEST_ID = '^[A-Za-z0-9._-]{1,64}$';

export const RequestIdParams = Type.Object({
  requestID: Type.String({ pattern: REQUEST_ID, description: 'The X-Request-Id the call answered with.' }),
});

const Credential = Type.Object(
  {
    type: Type.Union(
      [
        Type.Literal('secret_key'),
        Type.Literal('publishable_key'),
        Type.Literal('access_token'),
        Type.Literal('client_secret'),
      ],
      {
        description:
          '`client_secret`: an app authenticating at the OAuth token, revoke or introspection endpoint.',
      },
    ),
    id: Type.String({ description: 'The key pair (`key_...`), or the app (`app_...`).' }),
    last4: Type.String({
      description: 'The last four characters of the credential sent; never the credential.',
    }),
  },
  { title: 'RequestCredential' },
);

const requestFields = {
  id: Type.String({ description: 'The X-Request-Id the call answered with (an incoming one as sent).' }),
  created_at: Timestamp,
  mode: Mode,
  method: Type.String(),
  path: Type.String({ description: 'Without the query string.' }),
  route: Type.Union([Type.String(), Type.Null()], {
    description: 'The route pattern, as the API reference names it.',
  }),
  status: Type.Integer(),
  error_code: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Number(),
  credential: Credential,
  app_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The app of a call made with its access token or its client secret; null otherwise.',
  }),
  store_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The store of the installation an access token acts through; null otherwise.',
  }),
  ip: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  idempotency_key: Type.Union([Type.String(), Type.Null()]),
  idempotent_replayed: Type.Boolean(),
  error: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description:
      'The error body the call answered with (status 400 and above; its first 4 KiB); null otherwise.',
  }),
};

export const RequestLogEntry = Type.Object(requestFields, { title: 'RequestLogEntry' });

export const RequestLogDetail = Type.Object(
  {
    ...requestFields,
    body_fields: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description:
        'The names of the top-level fields of the body (a JSON object or a form), never their values; null ' +
        'for a call without such a body, or recorded before the names were.',
    }),
    audit_entries: Type.Array(AuditEntryObject, {
      description: 'The audit log entries this request wrote (their metadata carries its request_id).',
    }),
    deliveries: Type.Array(Delivery, {
      description:
        'The webhook deliveries of the events recorded during this request, or by the platform with its request id.',
    }),
  },
  { title: 'RequestLogDetail' },
);

export const RequestsQuery = Type.Object({
  ...PageQuery,
  starting_after: Type.Optional(
    Type.String({
      pattern: REQUEST_ID,
      description: 'A request id of this log: the page continues after it.',
    }),
  ),
  status: Type.Optional(
    Type.String({
      pattern: '^([1-5]xx|[1-5][0-9]{2})$',
      description: 'A class (`2xx`, `4xx`, `5xx`) or a code.',
    }),
  ),
  error_code: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' })),
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,10}$', description: 'Any case.' })),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'A prefix of the path.' })),
  credential_id: Type.Optional(
    Type.String({
      pattern: '^(key|app)_[A-Za-z0-9]{1,60}$',
      description: 'A key pair (`key_...`) or an app (`app_...`).',
    }),
  ),
  app_id: Type.Optional(
    Type.String({
      pattern: '^app_[A-Za-z0-9]{1,60}$',
      description:
        "One app's calls. For the app's owner: its calls on every store that installed it, those refused " +
        'because the installation was disconnected or the token expired included.',
    }),
  ),
  store_id: Type.Optional(
    Type.String({
      pattern: '^store_[A-Za-z0-9]{1,60}$',
      description: 'Calls made through an installation on this store.',
    }),
  ),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive.' })),
});

export const RequestsPage = List(RequestLogEntry);
