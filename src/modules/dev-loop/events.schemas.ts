// The account's events (API.md section 10): the events page, resend, trigger, and `svc listen`'s stream and
// reports.
import { Type } from 'typebox';
import { Body, Data, List, Mode, PageQuery, Timestamp } from '../../http/schemas.ts';
import { EventType } from '../webhooks/index.ts';
import { Delivery, DeliveryStatus } from './deliveries.schemas.ts';

export const ResendBody = Body({ webhook_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ResendTarget = Type.Object(
  {
    webhook_id: Type.String(),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    app_id: Type.Union([Type.String(), Type.Null()], {
      description: "The app of an app webhook; null for the merchant's own.",
    }),
  },
  { title: 'ResendTarget' },
);
export const ResendTargetPage = List(ResendTarget);
export const EventParams = Type.Object({ eventID: Type.String({ minLength: 1, maxLength: 100 }) });
export const EventsQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive.' })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'An event id, or the `data.id` of its object.',
    }),
  ),
  after_sequence: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Only the events after this sequence, oldest first: a receiver that sees a gap in `sequence` fills it ' +
        'with the sequence it saw last before the gap.',
    }),
  ),
});
const EventFields = {
  id: Type.String(),
  type: Type.String(),
  timestamp: Timestamp,
  api_version: Type.String(),
  mode: Mode,
  merchant_id: Type.String(),
  sequence: Type.Integer({
    description: '1, 2, 3, ... per merchant and mode, in the order events were committed, with no gaps.',
  }),
  ordering_key: Type.Union([Type.String(), Type.Null()], {
    description:
      'What orders its deliveries to `per_object` webhooks: the `ordering_key` given at ingestion, else ' +
      '`data.id`.',
  }),
  data: Type.Unknown({ description: 'The object the event is about, as delivered.' }),
  created_at: Timestamp,
};
export const EventSummary = Type.Object(
  {
    ...EventFields,
    deliveries: Type.Array(
      Type.Object({
        id: Type.String(),
        webhook_id: Type.String(),
        status: DeliveryStatus,
        attempt_count: Type.Integer({
          description: 'Attempts made: a pending delivery tried already is retrying.',
        }),
      }),
    ),
  },
  { title: 'Event' },
);
export const EventPage = List(EventSummary);
export const EventWithDeliveries = Data(Type.Object({ ...EventFields, deliveries: Type.Array(Delivery) }));

export const ListenQuery = Type.Object({
  events: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'Comma-separated event types of the catalog; default every event.',
    }),
  ),
  forward_to: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "Where the client forwards the events: shown as the listener's url, never called.",
    }),
  ),
  app_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        "A test-mode app of this account: stream what its webhooks receive from its installations (bodies with app_id, grant_id, store_id) rather than the account's own events. Last-Event-ID does not replay for an app's stream.",
    }),
  ),
});
export const ListenReportBody = Body({
  duplicate: Type.Optional(
    Type.Boolean({
      description:
        'The client had forwarded this event already (a replay after a reconnect): the delivery is cancelled, no attempt is recorded.',
    }),
  ),
  status: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], {
    description: "The local endpoint's HTTP status; null when it did not answer.",
  }),
  duration_ms: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
  error: Type.Optional(Type.String({ maxLength: 1000, description: 'Why no answer came.' })),
  response_body: Type.Optional(
    Type.String({ maxLength: 1_000_000, description: 'The answer; its first 16 KiB are kept.' }),
  ),
});

export const TriggerBody = Body({
  type: EventType,
  data: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Merged over the sample, field by field (objects merge, anything else replaces); a field the ' +
          "type's schema does not name is refused with its path, and the result must match the schema.",
      },
    ),
  ),
  object: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The id of the object the event is about (`data.id`), e.g. the `ord_...` of an earlier order.created: ' +
        'the event continues that object (its ids, lines and creation time) when an earlier event names it.',
    }),
  ),
});
