// The data of a triggered or test event (API.md section 10, POST /events/trigger): the example of its type
// made the merchant's own. An app keyed by `store_id` (as the guides tell it to be) could not match the fixed
// examples to its install, and every trigger repeated the same order id and `created_at`. So the example is
// moved to the merchant's store, its ids are made fresh, and its times are moved to now, keeping their spacing
// (an order paid 72 s after it was created stays so). Given the object of an earlier event (`object`: the
// order of an `order.created`), the event continues that object's story instead: same ids, same lines.
import { platformId } from '../../lib/ids.ts';
import { AppError } from '../../lib/errors.ts';
import { EVENT_PAYLOADS } from './event-payloads.ts';

type Data = Record<string, unknown>;

export interface SampleSource {
  /** The merchant's store: every `store_id` of the data. */
  storeId: string;
  /** Epoch ms: the time of the event. */
  now: number;
  /** The id the event is about (`data.id`), when the caller names one. */
  object?: string | undefined;
  /** The `data` of the latest earlier event about `object`, if there is one. */
  previous?: Data | undefined;
}

// The fields that say where an object stands now: a continued object takes them from the new event.
const STATE_FIELDS: ReadonlySet<string> = new Set(['status', 'updated_at']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isPlainObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const isIdField = (key: string) => key === 'id' || (key.endsWith('_id') && key !== 'store_id');
const prefixOf = (id: string) => id.slice(0, id.indexOf('_'));

/** The latest date-time of the example: the moment its event happened, which becomes now. */
function latest(value: unknown): number {
  if (typeof value === 'string') return DATE_TIME.test(value) ? Date.parse(value) : -Infinity;
  if (Array.isArray(value)) return Math.max(-Infinity, ...value.map(latest));
  if (isPlainObject(value)) return Math.max(-Infinity, ...Object.values(value).map(latest));
  return -Infinity;
}

/**
 * The example with every id fresh (one fresh id per example id, so a product named twice stays one product),
 * the store's id, and every time shifted by `shift` ms.
 */
interface Refresh {
  storeId: string;
  /** Fresh ids are made at the time of the event: the platform made them then. */
  at: Date;
  shift: number;
  ids: Map<string, string>;
}

function refresh(value: unknown, key: string, s: Refresh): unknown {
  if (Array.isArray(value)) return value.map((v): unknown => refresh(v, '', s));
  if (isPlainObject(value)) {
    const out: Data = {};
    for (const [k, v] of Object.entries(value)) out[k] = refresh(v, k, s);
    return out;
  }
  if (typeof value !== 'string') return value;
  if (key === 'store_id') return s.storeId;
  if (isIdField(key) && value.includes('_')) {
    let fresh = s.ids.get(value);
    if (!fresh) s.ids.set(value, (fresh = platformId(prefixOf(value), s.at)));
    return fresh;
  }
  if (DATE_TIME.test(value)) return new Date(Date.parse(value) + s.shift).toISOString();
  if (DATE.test(value)) return new Date(Date.parse(value) + s.shift).toISOString().slice(0, 10);
  return value;
}

/** The prefix of the ids of the object an event type is about (`ord` for the order events). */
export function objectPrefix(type: string): string {
  const example = EVENT_PAYLOADS[type]?.example;
  if (!example || typeof example.id !== 'string') throw new Error(`no example for event type ${type}`);
  return prefixOf(example.id);
}

/** Throws 400 validation_failed naming `object` unless it can be the id of what a `type` event is about. */
function checkObject(type: string, object: string): void {
  const prefix = objectPrefix(type);
  if (!new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,60}$`).test(object)) {
    const issue = `must be the id of the ${type} object (${prefix}_...)`;
    throw new AppError('validation_failed', `object ${issue}.`, { details: [{ field: 'object', issue }] });
  }
}

/** The `data` of a triggered or test event of `type`, as it would come from the merchant's store now. */
export function sampleFor(type: string, source: SampleSource): Data {
  const payload = EVENT_PAYLOADS[type];
  if (!payload) throw new Error(`no payload schema for event type ${type}`);
  if (source.object !== undefined) checkObject(type, source.object);
  const data = refresh(payload.example, '', {
    storeId: source.storeId,
    at: new Date(source.now),
    shift: source.now - latest(payload.example),
    ids: new Map(),
  }) as Data;
  if (source.object !== undefined) data.id = source.object;
  if (!source.previous) return data;
  // The same object, one step further: what it was stays, what this event changes comes from the sample.
  const properties = (payload.schema as { properties?: Data }).properties ?? {};
  const changed = new Set(Array.isArray(data.changed_fields) ? (data.changed_fields as string[]) : []);
  for (const [key, value] of Object.entries(source.previous)) {
    if (Object.hasOwn(properties, key) && !STATE_FIELDS.has(key) && !changed.has(key)) data[key] = value;
  }
  return data;
}
