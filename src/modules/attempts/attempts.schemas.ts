// Every delivery attempt of the merchant's endpoints (API.md section 12.2): the attempt object and the
// list's filters.
import { Type } from 'typebox';
import { List, PageQuery, Timestamp } from '../../http/schemas.ts';

const OUTCOMES = ['succeeded', 'failed', 'timeout', 'network_error', 'refused'] as const;
export const AttemptOutcome = Type.Union(
  [
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('timeout'),
    Type.Literal('network_error'),
    Type.Literal('refused'),
  ],
  {
    description:
      '`succeeded`: a 2xx; `failed`: another status; `timeout`: no complete answer in time; `network_error`: ' +
      'the connection failed; `refused`: the address is one deliveries may not reach.',
  },
);

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const DeliveryAttempt = Type.Object(
  {
    id: Type.String({ description: '`att_...`' }),
    delivery_id: Type.String(),
    webhook_id: Type.String(),
    event_id: Type.String(),
    event_type: Type.String(),
    store_id: nullable("The installing store of an app webhook's delivery; null for the merchant's own."),
    app_id: nullable("The app of an app webhook; null for the merchant's own webhooks."),
    attempt: Type.Integer({ minimum: 1, description: "The attempt's number within its delivery." }),
    outcome: AttemptOutcome,
    response_status: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when no answer came.' }),
    duration_ms: Type.Integer(),
    created_at: Timestamp,
  },
  { title: 'DeliveryAttempt' },
);
export const DeliveryAttemptPage = List(DeliveryAttempt);

const ID = Type.String({ minLength: 1, maxLength: 64 });
const COMMA_OUTCOMES = `^(${OUTCOMES.join('|')})(,(${OUTCOMES.join('|')}))*$`;

export const AttemptsQuery = Type.Object({
  ...PageQuery,
  webhook_id: Type.Optional(ID),
  event_type: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Event types of the catalog, comma-separated; `order.*` names a family.',
    }),
  ),
  outcome: Type.Optional(
    Type.String({
      pattern: COMMA_OUTCOMES,
      maxLength: 200,
      description: 'One outcome or several, comma-separated.',
    }),
  ),
  status_class: Type.Optional(
    Type.String({
      pattern: '^[2-5]xx(,[2-5]xx)*$',
      maxLength: 20,
      description: '`2xx`, `3xx`, `4xx` or `5xx`, or several comma-separated.',
    }),
  ),
  store_id: Type.Optional(ID),
  app_id: Type.Optional(ID),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Attempts started at or after (inclusive).' }),
  ),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'Attempts started before (exclusive).' }),
  ),
});
