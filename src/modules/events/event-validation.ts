// Checks an event's `data` against the schema of its type (event-payloads.ts). A type's validator is compiled
// when the first event of that type is checked, and Ajv keeps it by the schema object: after that, ingestion
// pays a map look-up and one generated function call per event. (Compiling all of them as the module loaded
// cost every process start about 160 ms, most of it for types that process never sees.)
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { validationDetails } from '../../http/error-handler.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { EVENT_PAYLOADS } from './event-payloads.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// No defaults, no coercion, no removal: the data is checked as sent and kept byte for byte, extra fields too.
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false }));

/** The schema with no field beyond those it names, at any depth: what a caller may put in a triggered event. */
function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closedSchema(v)]));
  if (out.type === 'object') out.additionalProperties = false;
  return out;
}

// Ingestion keeps the fields a schema does not name (the platform may know more than this service does); a
// triggered event is made here, so a field the schema does not name is a mistake (`{"total": 4200}` beside
// `totals`), refused with its path. The closed schemas are made once, so that Ajv finds each again.
const CLOSED_SCHEMAS: Readonly<Record<string, object>> = Object.freeze(
  Object.fromEntries(
    Object.entries(EVENT_PAYLOADS).map(([type, p]) => [type, closedSchema(p.schema) as object]),
  ),
);

function validatorOf(type: string, closed: boolean): ValidateFunction {
  if (!Object.hasOwn(EVENT_PAYLOADS, type)) throw new Error(`no payload schema for event type ${type}`);
  return ajv.compile(closed ? CLOSED_SCHEMAS[type]! : EVENT_PAYLOADS[type]!.schema);
}

/**
 * Where `data` differs from the schema of `type`, as error details naming `data.<path>`; [] when it fits.
 * `closed`: a field the schema does not name is a problem too.
 */
export function payloadProblems(type: string, data: unknown, closed = false): ErrorDetail[] {
  const validate = validatorOf(type, closed);
  if (validate(data)) return [];
  return validationDetails(validate.errors ?? [], '').map((d) => ({
    field: d.field ? (d.field.startsWith('[') ? `data${d.field}` : `data.${d.field}`) : 'data',
    issue: d.issue,
  }));
}

/** Throws 400 validation_failed, with the path of every mismatch in `details`, unless `data` fits its type. */
export function checkPayload(type: string, data: unknown, closed = false): void {
  const details = payloadProblems(type, data, closed);
  if (details.length === 0) return;
  throw new AppError('validation_failed', `${details[0]!.field} ${details[0]!.issue} (schema of ${type}).`, {
    details,
  });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `override` merged over `base`, field by field: objects merge recursively; anything else (a value, an array,
 * null) replaces what was there.
 */
export function mergeData(base: Record<string, unknown>, override: Record<string, unknown>) {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    const merged = isPlainObject(current) && isPlainObject(value) ? mergeData(current, value) : value;
    // Defined, not assigned: a `__proto__` key of parsed JSON stays a plain field.
    Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
