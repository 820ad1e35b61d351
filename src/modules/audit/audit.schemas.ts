import { Type } from 'typebox';
import { Data, List, Mode, PageQuery, Timestamp } from '../../http/schemas.ts';

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex SHA-256.' });
const Sequence = Type.Integer({ minimum: 1 });

export const AuditEntry = Type.Object(
  {
    id: Type.String(),
    action: Type.String(),
    entity_type: Type.String(),
    entity_id: Type.String(),
    metadata: Type.String({
      description:
        'A JSON object serialised as a string: actor, ip, user_agent, request_id and the fields of the action.',
    }),
    created_at: Timestamp,
    sequence: Type.Union([Sequence, Type.Null()], {
      description: '1, 2, 3, ... per merchant and mode, with no gaps; null until the entry is sealed.',
    }),
    hash: Type.Union([Hash, Type.Null()], {
      description:
        'SHA-256 (hex) of prev_hash followed by the RFC 8785 canonical JSON of id, action, entity_type, ' +
        'entity_id, metadata (the string), created_at and sequence; null until the entry is sealed.',
    }),
    prev_hash: Type.Union([Hash, Type.Null()], {
      description:
        'The hash of the entry before it in the chain (64 zeros for the first); null until sealed.',
    }),
  },
  { title: 'AuditEntry' },
);

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
        'csv: RFC 4180, a header row, metadata as its JSON string, and an `outside_chain` column (true or ' +
        'false). jsonl: one entry object per line; an entry outside the chain carries `"outside_chain": true`.',
    }),
  ),
});

export const AuditCheckpoint = Data(
  Type.Object(
    {
      merchant_id: Type.String(),
      mode: Mode,
      sequence: Type.Integer({ minimum: 0, description: 'The last sealed entry; 0 before the first.' }),
      hash: Hash,
      signed_at: Timestamp,
      key_id: Type.String({ description: 'The `kid` of the key in GET /.well-known/svc-audit-keys.' }),
      signature: Type.String({
        description:
          'Ed25519, base64url, over `svc-audit-checkpoint.v1.{merchant_id}.{mode}.{sequence}.{hash}.{signed_at}`.',
      }),
    },
    { title: 'AuditCheckpoint' },
  ),
);

export const AuditChainState = Data(
  Type.Object(
    {
      state: Type.Union([Type.Literal('verified'), Type.Literal('broken'), Type.Literal('outside_chain')], {
        description:
          '`verified`: every entry is in the chain (or queued for it) and the chain holds. `broken`: the ' +
          'chain does not hold, see `broken`. `outside_chain`: the chain holds, but `outside_chain` entries ' +
          'of the log are not in it: rows written into the database by hand, never to be sealed.',
      }),
      verified_through: Type.Union([
        Type.Object({ sequence: Sequence, hash: Hash, created_at: Timestamp }),
        Type.Null(),
      ]),
      broken: Type.Union([
        Type.Object({ sequence: Sequence, id: Type.String(), issue: Type.String() }),
        Type.Null(),
      ]),
      unsealed: Type.Integer({
        minimum: 0,
        description: 'Entries queued for sealing: written in the last seconds, not in the chain yet.',
      }),
      outside_chain: Type.Integer({
        minimum: 0,
        description:
          'Entries neither sealed nor queued for sealing: no writer of the service made them (a row ' +
          'inserted into the database by hand). The list shows them with a null hash and the export ' +
          'flags them (`outside_chain`); `svc audit verify` fails on them.',
      }),
      first_outside_chain: Type.Union(
        [Type.Object({ id: Type.String(), created_at: Timestamp }), Type.Null()],
        { description: 'The oldest entry outside the chain, if any.' },
      ),
      checked_at: Timestamp,
    },
    { title: 'AuditChainState' },
  ),
);

export const AuditKeys = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal('OKP'),
        crv: Type.Literal('Ed25519'),
        x: Type.String(),
        kid: Type.String(),
        alg: Type.Literal('EdDSA'),
        use: Type.Literal('sig'),
      }),
    ),
  },
  { title: 'AuditKeys' },
);
