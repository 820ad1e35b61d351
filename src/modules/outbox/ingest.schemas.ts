import { Type } from 'typebox';
import { Body, Data, Mode } from '../../http/schemas.ts';

export const IngestBody = Body({
  merchant_id: Type.String({ minLength: 1, maxLength: 64 }),
  mode: Mode,
  type: Type.String({ minLength: 1, maxLength: 100, description: 'An event id of the catalog.' }),
  data: Type.Object({}, { additionalProperties: true, description: 'The object the event is about.' }),
  id: Type.Optional(
    Type.String({
      pattern: '^evt_[A-Za-z0-9_-]{1,64}$',
      description: 'Becomes the event id; a repeated id is a no-op.',
    }),
  ),
  ordering_key: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'What orders its deliveries to `per_object` webhooks: a delivery waits while an earlier one of the ' +
        'same key to the same webhook is pending. Default: `data.id`.',
    }),
  ),
});

export const Ingested = Data(
  Type.Object({
    id: Type.String(),
    deliveries: Type.Integer({ description: 'Deliveries created, one per enabled subscribed webhook.' }),
    duplicate: Type.Optional(Type.Boolean()),
  }),
);
