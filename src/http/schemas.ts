// Schema pieces shared by every route: envelopes, pagination, timestamps, ids.
import { Type, type TSchema } from 'typebox';
import type { PageInput } from '../lib/scope.ts';
import { NO_SECRET } from './schema-rules.ts';

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00.000Z'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Mode = Type.Union([Type.Literal('test'), Type.Literal('live')]);
export const Scope = Type.Union([
  Type.Literal('public:read'),
  Type.Literal('public:write'),
  Type.Literal('public:*'),
]);
export const Scopes = Type.Array(Scope, { minItems: 1, maxItems: 3, uniqueItems: true });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      request_id: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), issue: Type.String() }))),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every error answer.' },
);

export function Data<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

/** The list envelope; a list of a named item is named too (`WebhookList`), so generated clients share it. */
export function List<T extends TSchema>(item: T) {
  const title = (item as { title?: unknown }).title;
  return Data(
    Type.Object(
      {
        items: Type.Array(item),
        count: Type.Integer({ description: 'Total matching, over all pages.' }),
        has_more: Type.Boolean(),
        next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as starting_after.' }),
      },
      typeof title === 'string' ? { title: `${title}List` } : {},
    ),
  );
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};

/**
 * Text that names, describes or addresses something (names, descriptions, URLs): refused when it holds
 * something shaped like a secret credential, a courtesy of secret scanning (src/http/schema-rules.ts).
 */
export const PlainText = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.String({ ...options, [NO_SECRET]: true });

/** An object body with no fields: routes that take no body still reject unknown fields. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

/** Objects in request bodies reject unknown fields (API.md section 1). */
export function Body<T extends Parameters<typeof Type.Object>[0]>(properties: T) {
  return Type.Object(properties, { additionalProperties: false });
}

/** Common error answers, listed in the OpenAPI document of each route. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorEnvelope')])) as Record<number, TSchema>;

/** The page a list route was asked for; the schema's default limit when none was sent. */
export function pageOf(query: {
  limit?: number | undefined;
  starting_after?: string | undefined;
}): PageInput {
  return { limit: query.limit ?? 50, startingAfter: query.starting_after };
}
