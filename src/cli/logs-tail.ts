// `svc logs tail`: the account's test-mode request log as it grows, one line per call (or one JSON object
// with --format json), with the filters of the list route, as `stripe logs tail` does. It polls the list
// route (GET /api/v1/merchant/developer/requests) once a second: entries reach the log in batches about a
// second after their answer, and a call that started earlier can be written later than one that started
// after it, so each poll reads the last LAG_MS by time and prints only the entries it has not printed yet.
// Polling needs nothing of the service beyond the route every other reader uses (docs/decisions/0091-logs-tail-polls.md).
import { CliError, type Command } from './command.ts';
import { apiError, apiUrl, requireSession, type StoredSession } from './session.ts';
import { systemClock } from '../lib/time.ts';

interface Entry {
  id: string;
  created_at: string;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  credential: { type: string; id: string; last4: string };
  store_id?: string | null;
}

interface Page {
  items: Entry[];
  has_more: boolean;
  next_cursor: string | null;
}

const POLL_MS = 1000;
// How far back each poll looks: a batch is written within about a second of its first entry, and another
// process's batch may land later than this one's; past 10 s an entry is not waited for any more.
const LAG_MS = 10_000;
const PAGE = 200;
const MAX_PAGES = 10;
const FILTERS = ['status', 'error-code', 'method', 'path', 'credential', 'app', 'store'] as const;
const PARAM: Record<(typeof FILTERS)[number], string> = {
  status: 'status',
  'error-code': 'error_code',
  method: 'method',
  path: 'path',
  credential: 'credential_id',
  app: 'app_id',
  store: 'store_id',
};

/** One line of the tail: time, status and code, method and path, duration, request id, credential. */
export function tailLine(e: Entry): string {
  const status = e.error_code ? `${e.status} ${e.error_code}` : String(e.status);
  const store = e.store_id ? ` on ${e.store_id}` : '';
  return `${e.created_at}  ${status.padEnd(24)} ${e.method.padEnd(6)} ${e.path}  ${e.duration_ms} ms  ${e.id}  ${e.credential.type} ${e.credential.id}${store}`;
}

class Retry extends Error {}

async function readPage(base: string, session: StoredSession, query: URLSearchParams): Promise<Page> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/merchant/developer/requests?${query}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${session.token}`, 'x-svc-mode': 'test' },
    });
  } catch {
    throw new Retry(`Cannot reach ${base}`);
  }
  const text = await res.text();
  let parsed: { data?: Page; error?: { code?: string; message?: string } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  // 4xx will not get better by retrying; 5xx (a restart, the database away) may.
  if (res.status >= 500) throw new Retry(`The service answered ${res.status}`);
  if (!res.ok || !parsed?.data) throw apiError(res.status, parsed);
  return parsed.data;
}

/** The entries of the last LAG_MS up to now, newest first, every page of them (bounded). */
async function recent(base: string, session: StoredSession, filters: URLSearchParams, since: string) {
  const entries: Entry[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams(filters);
    query.set('since', since);
    query.set('limit', String(PAGE));
    if (after) query.set('starting_after', after);
    const read = await readPage(base, session, query);
    entries.push(...read.items);
    if (!read.has_more || !read.next_cursor) break;
    after = read.next_cursor;
  }
  return entries;
}

export const logsTailCommand: Command = {
  name: 'logs tail',
  summary: "Print the account's test-mode API requests as they happen.",
  usage:
    '[--status 4xx] [--error-code CODE] [--method POST] [--path /api/public/v1/...] [--credential key_...] [--app app_...] [--store store_...] [--format json] [--api-url URL]',
  help: `Options:
  --status S        a class (2xx, 4xx, 5xx) or a status code
  --error-code C    only calls answered with this error code
  --method M        only this HTTP method
  --path P          only paths that start with P
  --credential ID   only calls of this key pair (key_...) or app (app_...)
  --app ID          your app's calls on every store that installed it (app_...), refused ones included
  --store ID        only calls made through an installation on this store (store_...)
  --format json     one JSON object per line instead of text
  --api-url URL     the service (default: where \`svc login\` signed in)

One line per call to the public API made with this account's test-mode credentials: time, status and error
code, method and path, duration, request id, credential. Calls appear about a second after their answer.
Open one with its request id on the dashboard's Requests tab. Needs \`svc login\` first. Stop with Ctrl-C.`,
  options: {
    status: { type: 'string' },
    'error-code': { type: 'string' },
    method: { type: 'string' },
    path: { type: 'string' },
    credential: { type: 'string' },
    app: { type: 'string' },
    store: { type: 'string' },
    format: { type: 'string' },
    'api-url': { type: 'string' },
  },
  async run(values) {
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new CliError('--format must be text or json.');
    const filters = new URLSearchParams();
    for (const name of FILTERS) {
      const value = values[name];
      if (typeof value === 'string' && value !== '') filters.set(PARAM[name], value);
    }
    const session = requireSession();
    return tail(apiUrl(values['api-url'], session), session, filters, format === 'json');
  },
};

async function tail(base: string, session: StoredSession, filters: URLSearchParams, json: boolean) {
  let stopped = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    stopped = true;
    wake?.();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms);
    });
  // Entries printed, by request id and time (an incoming request id may repeat), until they leave the window.
  const printed = new Map<string, number>();
  const keyOf = (e: Entry) => `${e.id} ${e.created_at}`;
  let first = true;
  while (!stopped) {
    const now = systemClock.now();
    try {
      const entries = await recent(base, session, filters, new Date(now - LAG_MS).toISOString());
      // What the log held before the tail started is history, not news.
      for (const e of entries.toReversed()) {
        const key = keyOf(e);
        if (printed.has(key)) continue;
        printed.set(key, Date.parse(e.created_at));
        if (!first) process.stdout.write(`${json ? JSON.stringify(e) : tailLine(e)}\n`);
      }
      if (first) process.stderr.write('Ready. Waiting for requests (Ctrl-C to stop).\n');
      first = false;
      for (const [key, at] of printed) if (at < now - 2 * LAG_MS) printed.delete(key);
    } catch (err) {
      if (!(err instanceof Retry)) throw err;
      process.stderr.write(`${err.message}; retrying.\n`);
    }
    await pause(POLL_MS);
  }
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}
