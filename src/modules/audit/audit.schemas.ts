import { Type } from 'typebox';
import { List, PageQuery, Timestamp } from '../../http/schemas.ts';

export const AuditEntry = Type.Object({
  id: Type.String(),
  action: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.String(),
  metadata: Type.String({
    description:
      'A JSON object serialised as a string: actor, ip, user_agent, request_id and the fields of the action.',
  }),
  created_at: Timestamp,
});

export const LogsQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({
      pattern: '^[a-z_]+\\.(\\*|[a-z_]+)$',
      maxLength: 100,
      description: 'Exact action, or a family as `webhook.*`.',
    }),
  ),
  entity_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  entity_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive.' })),
});

export const LogsPage = List(AuditEntry);

const { limit: _limit, starting_after: _startingAfter, ...filters } = LogsQuery.properties;
export const ExportQuery = Type.Object({
  ...filters,
  format: Type.Optional(
    Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
      default: 'csv',
      description:
        'csv: RFC 4180, a header row, metadata as its JSON string. jsonl: one entry object per line.',
    }),
  ),
});
