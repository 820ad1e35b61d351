import { Type } from 'typebox';
import { Body, Data, List, Mode, NullableTimestamp, PageQuery, Timestamp } from '../../http/schemas.ts';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute; https in live mode.' });
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Event ids of the catalog (GET /webhooks/events).',
});
const Description = Type.String({ maxLength: 500 });

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  mode: Mode,
  created_at: Timestamp,
  updated_at: Timestamp,
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
});
export const WebhookWithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({ description: 'whsec_ + base64; shown only here.' }),
});

export const CreateWebhookBody = Body({ url: Url, events: Events, description: Type.Optional(Description) });
export const UpdateWebhookBody = Body({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
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
export const TestWebhookBody = Body({
  event: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Default: the first subscribed.' }),
  ),
});

export const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
export const Delivery = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: DeliveryStatus,
  attempt_count: Type.Integer(),
  next_attempt_at: NullableTimestamp,
  last_attempt_at: NullableTimestamp,
  last_response_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  test: Type.Boolean(),
  created_at: Timestamp,
});
export const Attempt = Type.Object({
  number: Type.Integer(),
  started_at: Timestamp,
  duration_ms: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  response_body: Type.Union([Type.String(), Type.Null()], { description: 'The first 16 KiB.' }),
  error: Type.Union([Type.String(), Type.Null()]),
});
export const DeliveryWithAttempts = Type.Object({ ...Delivery.properties, attempts: Type.Array(Attempt) });

export const DeliveriesQuery = Type.Object({ ...PageQuery, status: Type.Optional(DeliveryStatus) });

export const EventDefinition = Type.Object({
  id: Type.String(),
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
});

export const WebhookParams = Type.Object({ webhookID: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  webhookID: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryID: Type.String({ minLength: 1, maxLength: 64 }),
});

export const WebhookData = Data(Webhook);
export const WebhookSecretData = Data(WebhookWithSecret);
export const WebhookPage = List(Webhook);
export const DeliveryData = Data(Delivery);
export const DeliveryAttemptsData = Data(DeliveryWithAttempts);
export const DeliveryPage = List(Delivery);
export const EventCatalog = List(EventDefinition);
