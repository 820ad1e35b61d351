// Replays by filter (API.md section 12.2): the request, the replay object and its routes' parameters.
import { Type } from 'typebox';
import { Body, Data, List, NullableTimestamp, PageQuery, Timestamp } from '../../http/schemas.ts';
import { EventType } from '../webhooks/index.ts';

const ReplayEventStatus = Type.Union([Type.Literal('failed'), Type.Literal('all')], {
  description:
    '`failed` (the default): events whose last delivery to this endpoint failed, finally or with a retry ' +
    'still scheduled. `all`: every event the endpoint received or should have received in the window.',
});
const StoreId = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "Only this store's: an app webhook's installation on it, or events whose `data.store_id` it is.",
});

export const ReplayBody = Body({
  since: Type.String({ format: 'date-time', description: 'Events recorded at or after this.' }),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'Events recorded before this (default: now).' }),
  ),
  status: Type.Optional(ReplayEventStatus),
  event_types: Type.Optional(
    Type.Array(EventType, { minItems: 1, maxItems: 100, description: 'Only events of these types.' }),
  ),
  store_id: Type.Optional(StoreId),
  preview: Type.Optional(
    Type.Boolean({ default: false, description: 'Only count the events it would walk (`matched`).' }),
  ),
});

export const Replay = Type.Object(
  {
    id: Type.String({ description: 'rpl_...' }),
    webhook_id: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('cancelled')]),
    filter: Type.Object(
      {
        since: Timestamp,
        until: Timestamp,
        status: ReplayEventStatus,
        event_types: Type.Union([Type.Array(Type.String()), Type.Null()]),
        store_id: Type.Union([Type.String(), Type.Null()]),
      },
      { description: 'What the replay was asked for (`until` defaults to when it was made).' },
    ),
    matched: Type.Integer({
      description:
        'Events in the window: counted when it began, and the exact sum of the two below once done.',
    }),
    queued: Type.Integer({ description: 'Deliveries made so far; they are sent after every live one due.' }),
    skipped: Type.Integer({
      description: 'Events of a type the endpoint no longer subscribes to, or that its filter refuses.',
    }),
    created_at: Timestamp,
    finished_at: NullableTimestamp,
  },
  { title: 'Replay' },
);

export const ReplayParams = Type.Object({
  webhookID: Type.String({ minLength: 1, maxLength: 64 }),
  replayID: Type.String({ minLength: 1, maxLength: 64 }),
});
export const ReplaysQuery = Type.Object({ ...PageQuery });

export const ReplayData = Data(Replay);
export const ReplayPage = List(Replay);
export const ReplayPreviewData = Data(
  Type.Object({ matched: Type.Integer({ description: 'Events the replay would walk now.' }) }),
);
