// One request log entry as the recorder keeps it until its batch is written, and the counter keys it bumps:
// the same keys the list reads its `count` from, so that a filter and its counter always agree.
import type { Mode } from '../../lib/credentials.ts';
import type { Caller } from '../../http/request.ts';

export interface RequestEntry {
  /** When the request arrived, epoch ms. */
  readonly createdAt: number;
  readonly merchantId: string;
  readonly mode: Mode;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
  readonly credentialType: Caller['type'];
  readonly credentialId: string;
  readonly credentialLast4: string;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly idempotencyKey: string | null;
  readonly replayed: boolean;
  /** The error body as sent, for answers of 400 and above; its code is read from it when written. */
  readonly error: string | null;
  /** The app of an access token's or a client secret's call. */
  readonly appId: string | null;
  /** The store of the installation an access token acts through. */
  readonly storeId: string | null;
  /** The app owner's copy of a call on another merchant's store, or of a refused call of its app. */
  readonly forOwner: boolean;
  /** The top-level names of the body's fields (a JSON object or a form), never a value; null otherwise. */
  readonly bodyFields?: readonly string[] | null;
}

/** What narrows a list of entries, besides the merchant and mode. */
export interface EntryFilter {
  /** `2xx`, `4xx`, `5xx` (any class), or one status code. */
  status?: string | undefined;
  errorCode?: string | undefined;
  method?: string | undefined;
  /** A prefix of the path. */
  path?: string | undefined;
  credentialId?: string | undefined;
  /** One app's calls: the owner's entries of them as well as this merchant's own. */
  appId?: string | undefined;
  storeId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

const statusKey = (status: string) => (status.endsWith('xx') ? `class:${status}` : `status:${status}`);

/** The counters of an app's calls, and of its calls on one store. */
function appKeys(e: RequestEntry): string[] {
  if (e.appId === null) return [];
  const app = `app:${e.appId}`;
  return e.storeId === null ? [app] : [app, `${app} store:${e.storeId}`];
}

/**
 * The counters an entry bumps: every entry '*', then one per filter that a counter can answer. An owner's copy
 * is in no list but its app's, and bumps only its app's counters.
 */
export function counterKeys(e: RequestEntry, errorCode: string | null): string[] {
  if (e.forOwner) return appKeys(e);
  const keys = [
    '*',
    `class:${Math.floor(e.status / 100)}xx`,
    `status:${e.status}`,
    `method:${e.method}`,
    `credential:${e.credentialId}`,
  ];
  if (errorCode !== null) keys.push(`error:${errorCode}`);
  keys.push(...appKeys(e));
  return keys;
}

/** The counter that answers `count` for a filter: none, or one filter other than path and time. */
export function counterKeyOf(f: EntryFilter): string | undefined {
  if (f.path !== undefined || f.since !== undefined || f.until !== undefined) return undefined;
  if (f.appId !== undefined || f.storeId !== undefined) return appCounterKeyOf(f);
  const keys = [
    f.status === undefined ? undefined : statusKey(f.status),
    f.errorCode === undefined ? undefined : `error:${f.errorCode}`,
    f.method === undefined ? undefined : `method:${f.method}`,
    f.credentialId === undefined ? undefined : `credential:${f.credentialId}`,
  ].filter((k) => k !== undefined);
  if (keys.length > 1) return undefined;
  return keys[0] ?? '*';
}

/** `app_id` alone, or with `store_id`: an app counter; with any other filter, or a store alone, none. */
function appCounterKeyOf(f: EntryFilter): string | undefined {
  const others = [f.status, f.errorCode, f.method, f.credentialId].some((v) => v !== undefined);
  if (others || f.appId === undefined) return undefined;
  return f.storeId === undefined ? `app:${f.appId}` : `app:${f.appId} store:${f.storeId}`;
}

/** The code of an error body: the envelope's `error.code`, or the OAuth endpoints' RFC `error`. */
export function errorCodeOf(body: string | null): string | null {
  if (body === null) return null;
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') return error.slice(0, 100);
    if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') {
      return (error as { code: string }).code.slice(0, 100);
    }
  } catch {
    // not JSON: no code to read
  }
  return null;
}

/** The UTC day of an instant, as partitions and counters name it (YYYY-MM-DD). */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
