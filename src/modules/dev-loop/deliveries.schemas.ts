// The deliveries as merchants see them (API.md section 7): a delivery, its attempts, the test, retry and
// recover routes' bodies.
import { Type } from 'typebox';
import { Body, Data, List, NullableTimestamp, PageQuery, Timestamp } from '../../http/schemas.ts';
import { EventType } from '../webhooks/index.ts';

export const TestWebhookBody = Body({
  event: Type.Optional(EventType),
});

export const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
export const Delivery = Type.Object(
  {
    id: Type.String(),
    webhook_id: Type.String(),
    event_id: Type.String(),
    event_type: Type.String(),
    store_id: Type.Union([Type.String(), Type.Null()], {
      description: "The installing store of an app webhook's delivery; null for the merchant's own.",
    }),
    app_id: Type.Union([Type.String(), Type.Null()], {
      description: "The app of an app webhook; null for the merchant's own webhooks.",
    }),
    status: DeliveryStatus,
    attempt_count: Type.Integer(),
    next_attempt_at: NullableTimestamp,
    last_attempt_at: NullableTimestamp,
    last_response_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    test: Type.Boolean(),
    created_at: Timestamp,
  },
  { title: 'Delivery' },
);
export const Attempt = Type.Object(
  {
    number: Type.Integer(),
    started_at: Timestamp,
    duration_ms: Type.Integer(),
    response_status: Type.Union([Type.Integer(), Type.Null()]),
    response_body: Type.Union([Type.String(), Type.Null()], { description: 'The first 16 KiB.' }),
    request_headers: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description:
        'The headers sent: webhook-id, webhook-timestamp, webhook-signature, content-type, user-agent.',
    }),
    response_headers: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: "The answer's headers (at most 50, values cut at 1 KiB); null when no answer came.",
    }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Attempt' },
);
export const DeliveryWithAttempts = Type.Object(
  {
    ...Delivery.properties,
    payload: Type.Union([Type.String(), Type.Null()], {
      description: 'The exact request body every attempt sent and signed; null once the event is purged.',
    }),
    attempts: Type.Array(Attempt),
  },
  { title: 'DeliveryWithAttempts' },
);
export const DeliveriesQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(DeliveryStatus),
  store_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: "An installing store: an app webhook's deliveries for it.",
    }),
  ),
});
export const DeliveryParams = Type.Object({
  webhookID: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryID: Type.String({ minLength: 1, maxLength: 64 }),
});

export const DeliveryData = Data(Delivery);
export const DeliveryAttemptsData = Data(DeliveryWithAttempts);
export const DeliveryPage = List(Delivery);

export const RecoverBody = Body({
  since: Type.String({ format: 'date-time', description: 'Failed deliveries created at or after this.' }),
  preview: Type.Optional(Type.Boolean({ default: false, description: 'Only count what would be sent.' })),
});
export const RecoverData = Data(
  Type.Object({
    count: Type.Integer({ description: 'Deliveries enqueued again (or that would be, with preview).' }),
    has_more: Type.Boolean({ description: 'More than 10,000 matched: call again for the rest.' }),
  }),
);
