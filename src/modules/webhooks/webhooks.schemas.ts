import { Type } from 'typebox';
import {
  Body,
  Data,
  List,
  Mode,
  NullableTimestamp,
  PageQuery,
  PlainText,
  Timestamp,
} from '../../http/schemas.ts';

const Url = PlainText({ minLength: 1, maxLength: 2048, description: 'Absolute; https in live mode.' });
/**
 * An event id of the catalog. Checked by the services (an unknown one is named in the error), so the route
 * schema is a string; the OpenAPI document lists the ids (its EventType schema), and the typed client with it.
 */
export const EventType = Type.String({
  title: 'EventType',
  minLength: 1,
  maxLength: 100,
  description: 'An event id of the catalog (GET /webhooks/events).',
});
const Events = Type.Array(EventType, {
  minItems: 1,
  maxItems: 100,
  description: 'Event ids of the catalog (GET /webhooks/events).',
});
const Description = PlainText({ maxLength: 500 });
const AppId = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "An app of this account in the request's mode: the webhook then receives the events of every merchant " +
    'that installed the app, and never the account’s own unless it installed the app too.',
});
const RateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 10_000 }), Type.Null()], {
  description:
    'Attempts per second to this endpoint, 1-10000: never more start in any one-second window, across every ' +
    'process. null (the default): no limit.',
});
const Ordering = Type.Union([Type.Literal('none'), Type.Literal('per_object')], {
  description:
    '`per_object`: a delivery waits while an earlier-recorded delivery of the same ordering key (the ' +
    "event's `ordering_key`, else its `data.id`) to this webhook is pending; other keys flow. `none` (the " +
    'default): no order.',
});

/**
 * Checked by the service (payload-filter.ts), which names every faulty condition in `details`; the schema only
 * documents the shape, so that a fault is reported once, by its condition.
 */
const PayloadFilter = Type.Unknown({
  title: 'PayloadFilter',
  description:
    'null (the default: every event of the subscribed types), or `{"all":[...]}` (every condition holds) or ' +
    '`{"any":[...]}` (at least one does) of 1-20 conditions `{"path","op","value"}`. `path`: a dotted path ' +
    'into the delivery body (`data.total`, `data.currency`, `store_id`; a number steps into an array). `op`: ' +
    '`eq`, `ne` (JSON values; a missing path is `ne` any value), `gt`, `gte`, `lt`, `lte` (a number with ' +
    'numbers, a string with strings byte by byte), `in` (value: an array of 1-100 scalars), `exists` (value: ' +
    'true or false; a JSON null exists), `prefix` (value: a non-empty string). An event that does not match ' +
    'records no delivery to the webhook (counted in `health.filtered_24h`); test deliveries ignore it.',
  examples: [{ all: [{ path: 'data.total', op: 'gte', value: 100 }] }],
});

export const WebhookHealth = Type.Object(
  {
    deliveries_24h: Type.Integer({ description: 'Real (non-test) deliveries created in the last 24 hours.' }),
    filtered_24h: Type.Integer({
      description:
        "Events its payload filter refused (no delivery recorded), counted by the hour: the current hour's and " +
        'the 23 before it.',
    }),
    success_rate_24h: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'Of those with at least one attempt, the share that succeeded; null when none was tried.',
    }),
    last_attempt_at: NullableTimestamp,
    last_status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'HTTP status of the last attempt; null when it got no answer or none was made.',
    }),
    last_error: Type.Union([Type.String(), Type.Null()], {
      description:
        'What went wrong in the last attempt, as `code: detail` (`ECONNREFUSED: ...`, `timeout: ...`, ' +
        '`http_status: ...`); null when it succeeded or none was made.',
    }),
    failing_since: Type.Union([Timestamp, Type.Null()], {
      description: 'First failure of the current unbroken run of failures.',
    }),
    disables_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the 5-day rule disables the webhook if failures continue.',
    }),
    pace: Type.Union([Type.Number(), Type.Null()], {
      description:
        'Attempts per second allowed now: the adaptive pace where the endpoint was paced down below its ' +
        '`rate_limit`, else the `rate_limit`; null while unconstrained.',
    }),
    pace_reason: Type.Union(
      [
        Type.Literal('rate_limit'),
        Type.Literal('429'),
        Type.Literal('503'),
        Type.Literal('timeout'),
        Type.Null(),
      ],
      {
        description:
          "Why `pace` applies: the webhook's `rate_limit`, or what the endpoint did when it was paced down " +
          '(answered 429 or 503, or timed out).',
      },
    ),
  },
  { title: 'WebhookHealth', description: 'Test deliveries do not count.' },
);

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    app_id: Type.Union([Type.String(), Type.Null()], {
      description: "The app whose installations it hears (API.md 11.1); null for the account's own webhook.",
    }),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
    kind: Type.Union([Type.Literal('endpoint'), Type.Literal('listener')], {
      description:
        '`listener`: the temporary endpoint of an open `svc listen` stream; it vanishes when the stream closes.',
    }),
    mode: Mode,
    created_at: Timestamp,
    updated_at: Timestamp,
    disabled_reason: Type.Union([Type.String(), Type.Null()]),
    rate_limit: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Most attempts started in any one second; null: no limit.',
    }),
    ordering: Ordering,
    filter: PayloadFilter,
    health: WebhookHealth,
  },
  { title: 'Webhook' },
);
export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({ description: 'whsec_ + base64; shown only here.' }),
  },
  { title: 'WebhookWithSecret' },
);

export const CreateWebhookBody = Body({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
  rate_limit: Type.Optional(RateLimit),
  ordering: Type.Optional(Ordering),
  filter: Type.Optional(PayloadFilter),
  app_id: Type.Optional(AppId),
});
export const WebhooksQuery = Type.Object({
  ...PageQuery,
  app_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "Only this app's webhooks." }),
  ),
});
export const UpdateWebhookBody = Body({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  rate_limit: Type.Optional(RateLimit),
  ordering: Type.Optional(Ordering),
  filter: Type.Optional(PayloadFilter),
});
export const RotateSecretBody = Body({
  previous_secret_expires_in: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 604_800,
      default: 86_400,
      description: 'Seconds the old secret keeps signing too.',
    }),
  ),
});

export const EventDefinition = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    category: Type.String(),
    description: Type.String(),
    schema: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "The JSON Schema (2020-12) of the event's `data`. Within v1 it only gains optional fields; " +
          'objects allow unknown fields, which receivers should ignore.',
      },
    ),
    example: Type.Object(
      {},
      { additionalProperties: true, description: 'A realistic `data` of this type, valid against `schema`.' },
    ),
  },
  { title: 'EventDefinition' },
);

export const WebhookParams = Type.Object({ webhookID: Type.String({ minLength: 1, maxLength: 64 }) });

export const WebhookData = Data(Webhook);
export const WebhookSecretData = Data(WebhookWithSecret);
export const WebhookPage = List(Webhook);
export const EventCatalog = List(EventDefinition);

export const RevealSecretBody = Body({
  password: Type.String({ minLength: 1, maxLength: 1024, description: "The signed-in user's password." }),
});
export const RevealSecretData = Data(
  Type.Object({ secret: Type.String({ description: 'whsec_ + base64.' }) }),
);
