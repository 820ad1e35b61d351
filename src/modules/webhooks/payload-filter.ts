// A webhook's payload filter (API.md section 12.2): what a merchant may set, checked here with every fault
// named by its condition (`filter.all[2].value`); the fan-out evaluates it (svc_payload_matches, migration
// 0141), so what passes here is exactly what that function understands.
import { AppError, type ErrorDetail } from '../../lib/errors.ts';

export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'prefix'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export interface FilterCondition {
  path: string;
  op: FilterOp;
  value: unknown;
}
export type PayloadFilter = { all: FilterCondition[] } | { any: FilterCondition[] };

export const MAX_CONDITIONS = 20;
const MAX_PATH = 200;
const MAX_SEGMENTS = 10;
const MAX_IN = 100;
const MAX_VALUE_TEXT = 1000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v);

/** Why a condition's `path` is refused; undefined when it is a dotted path. */
function pathFault(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH)
    return `must be a dotted path of 1-${MAX_PATH} characters`;
  const segments = path.split('.');
  if (segments.length > MAX_SEGMENTS || segments.some((s) => s.length === 0))
    return `must be 1-${MAX_SEGMENTS} non-empty names separated by dots`;
  return undefined;
}

/** Why a condition's `value` does not suit its op; undefined when it does. */
function valueFault(op: FilterOp, value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > MAX_VALUE_TEXT)
    return `must be at most ${MAX_VALUE_TEXT} characters`;
  switch (op) {
    case 'eq':
    case 'ne':
      return isScalar(value) ? undefined : `must be a string, a number, a boolean or null for ${op}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return typeof value === 'string' || Number.isFinite(value)
        ? undefined
        : `must be a number or a string for ${op}`;
    case 'in':
      return Array.isArray(value) && value.length >= 1 && value.length <= MAX_IN && value.every(isScalar)
        ? undefined
        : `must be an array of 1-${MAX_IN} strings, numbers, booleans or nulls for in`;
    case 'exists':
      return typeof value === 'boolean' ? undefined : 'must be true or false for exists';
    case 'prefix':
      return typeof value === 'string' && value.length > 0
        ? undefined
        : 'must be a non-empty string for prefix';
  }
}

function conditionFaults(cond: unknown, field: string): ErrorDetail[] {
  if (!isObject(cond)) return [{ field, issue: 'must be an object {"path","op","value"}' }];
  const faults: ErrorDetail[] = Object.keys(cond)
    .filter((k) => k !== 'path' && k !== 'op' && k !== 'value')
    .map((k) => ({ field: `${field}.${k}`, issue: 'is not an allowed field' }));
  const path = pathFault(cond.path);
  if (path) faults.push({ field: `${field}.path`, issue: path });
  if (!FILTER_OPS.includes(cond.op as FilterOp)) {
    faults.push({ field: `${field}.op`, issue: `must be one of ${FILTER_OPS.join(', ')}` });
  } else if (!('value' in cond)) {
    faults.push({ field: `${field}.value`, issue: 'is required' });
  } else {
    const value = valueFault(cond.op as FilterOp, cond.value);
    if (value) faults.push({ field: `${field}.value`, issue: value });
  }
  return faults;
}

/** The filter as stored (null: none), or a validation error naming every faulty condition. */
export function checkFilter(raw: unknown): PayloadFilter | null {
  if (raw === null) return null;
  const shape = 'must be null, {"all":[conditions]} or {"any":[conditions]}';
  const keys = isObject(raw) ? Object.keys(raw) : [];
  const key = keys[0];
  if (!isObject(raw) || keys.length !== 1 || (key !== 'all' && key !== 'any'))
    throw new AppError('validation_failed', `filter ${shape}.`, {
      details: [{ field: 'filter', issue: shape }],
    });
  const conditions = raw[key];
  const field = `filter.${key}`;
  if (!Array.isArray(conditions) || conditions.length === 0 || conditions.length > MAX_CONDITIONS) {
    const issue = `must be an array of 1-${MAX_CONDITIONS} conditions`;
    throw new AppError('validation_failed', `${field} ${issue}.`, { details: [{ field, issue }] });
  }
  const faults = conditions.flatMap((c, i) => conditionFaults(c, `${field}[${i}]`));
  if (faults.length > 0) {
    const first = faults[0]!;
    throw new AppError('validation_failed', `${first.field} ${first.issue}.`, { details: faults });
  }
  const clean = (conditions as FilterCondition[]).map(({ path, op, value }) => ({ path, op, value }));
  return key === 'all' ? { all: clean } : { any: clean };
}
