// `svc webhooks replay` and `svc attempts` (API.md section 12.2): a replay by filter started through the
// running service, followed by a progress bar until it ends, and the attempts list as a table. Both go through
// the merchant interface with the `svc login` session, in test mode unless --mode live says otherwise.
import { CliError, printResult, type Command, type Values } from './command.ts';
import { apiUrl, callApi, requireSession } from './session.ts';
import { systemClock } from '../lib/time.ts';

interface Replay {
  id: string;
  webhook_id: string;
  status: 'running' | 'done' | 'cancelled';
  matched: number;
  queued: number;
  skipped: number;
}

interface Attempt {
  id: string;
  webhook_id: string;
  event_type: string;
  store_id: string | null;
  attempt: number;
  outcome: string;
  response_status: number | null;
  duration_ms: number;
  created_at: string;
}

const POLL_MS = 500;
const BAR = 30;
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The service, the session and the mode of a command that talks to it. */
function target(values: Values) {
  const session = requireSession();
  const asked = values.mode ?? 'test';
  if (asked !== 'test' && asked !== 'live') throw new CliError('--mode must be test or live.');
  const mode: 'test' | 'live' = asked === 'live' ? 'live' : 'test';
  return { base: apiUrl(values['api-url'], session), session, mode };
}

/** An ISO time, or a duration back from now (`90m`, `2h`, `7d`). */
export function timeOption(name: string, value: string | boolean | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) return new Date(systemClock.now() - Number(ago[1]) * UNITS[ago[2]!]!).toISOString();
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new CliError(
      `--${name} must be a time (2026-12-01T22:00:00Z) or a duration back from now (2h, 7d).`,
    );
  return new Date(at).toISOString();
}

const list = (value: string | boolean | undefined) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : [];

/** One line of progress: a bar of what was walked (queued and skipped) over what matched. */
export function progressLine(r: Replay): string {
  const walked = r.queued + r.skipped;
  const share = r.status === 'done' ? 1 : r.matched === 0 ? 0 : Math.min(1, walked / r.matched);
  const filled = Math.round(share * BAR);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
  const pct = `${Math.floor(share * 100)}%`.padStart(4);
  return `${bar} ${pct}  ${walked} of ${r.matched} walked: ${r.queued} queued, ${r.skipped} skipped`;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads the replay until it ends, drawing the bar in place on a terminal, a line per change elsewhere. Ctrl-C
 * cancels the replay (what it queued is still sent) and shows where it stopped.
 */
async function follow(
  call: <T>(method: string, path: string, body?: unknown) => Promise<T>,
  path: string,
  first: Replay,
  json: boolean,
): Promise<{ replay: Replay; interrupted: boolean }> {
  const tty = !json && process.stdout.isTTY === true;
  let interrupted = false;
  const onSignal = () => (interrupted = true);
  process.once('SIGINT', onSignal);
  let replay = first;
  let shown = '';
  const show = () => {
    if (json) return;
    const line = progressLine(replay);
    if (line === shown) return;
    shown = line;
    process.stdout.write(tty ? `\r${line}` : `${line}\n`);
  };
  try {
    show();
    while (replay.status === 'running') {
      if (interrupted) {
        replay = await call<Replay>('DELETE', path);
        break;
      }
      await pause(POLL_MS);
      if (!interrupted) replay = await call<Replay>('GET', path);
      show();
    }
    show();
    if (tty) process.stdout.write('\n');
  } finally {
    process.off('SIGINT', onSignal);
  }
  return { replay, interrupted };
}

export const webhooksReplay: Command = {
  name: 'webhooks replay',
  summary: "Send an endpoint again the events of a window, following the replay's progress until it ends.",
  usage:
    'WEBHOOK_ID --since TIME [--until TIME] [--type a,b] [--status failed|all] [--store ID] [--preview] [--mode test|live] [--api-url URL] [--json]',
  help: `Arguments:
  WEBHOOK_ID          the endpoint (wh_...)

Options:
  --since TIME        events recorded at or after this: a time (2026-12-01T22:00:00Z) or a duration back
                      from now (90m, 2h, 7d)
  --until TIME        events recorded before this (default: now), in the same forms
  --type a,b          only events of these types (comma-separated)
  --status S          failed (the default: events whose last delivery failed, finally or with a retry to
                      come) or all (every event the endpoint received or should have received)
  --store ID          only this store's events (store_...)
  --preview           print how many events match, and start nothing
  --mode test|live    the mode of the endpoint (default: test)
  --api-url URL       the service (default: where \`svc login\` signed in)
  --json              print the replay as JSON once it ends (with --preview: {"matched"})

Events of a type the endpoint no longer subscribes to, or that its payload filter refuses, are skipped. The
replay runs in the service, on any of its processes, and its deliveries go out after every live one due;
this command shows a bar of what it has walked until it is done. Ctrl-C cancels it: what it queued is still
sent. Needs \`svc login\` first, as a developer or above.`,
  options: {
    since: { type: 'string' },
    until: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string' },
    store: { type: 'string' },
    preview: { type: 'boolean' },
    mode: { type: 'string' },
    'api-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: true,
  async run(values, positionals) {
    const [webhookId, ...extra] = positionals;
    if (!webhookId || extra.length > 0)
      throw new CliError('give exactly one webhook id, e.g. `svc webhooks replay wh_... --since 2h`.');
    const since = timeOption('since', values.since);
    if (!since) throw new CliError('--since is required: a time, or a duration back from now (2h, 7d).');
    const status = values.status ?? 'failed';
    if (status !== 'failed' && status !== 'all') throw new CliError('--status must be failed or all.');
    const until = timeOption('until', values.until);
    const types = list(values.type);
    const body = {
      since,
      ...(until ? { until } : {}),
      status,
      ...(types.length > 0 ? { event_types: types } : {}),
      ...(typeof values.store === 'string' && values.store ? { store_id: values.store } : {}),
    };
    const { base, session, mode } = target(values);
    const call = <T>(method: string, path: string, payload?: unknown) =>
      callApi<T>(base, session, method, path, payload, mode);
    const path = `/api/v1/merchant/webhooks/${encodeURIComponent(webhookId)}/replays`;
    if (values.preview) {
      const preview = await call<{ matched: number }>('POST', path, { ...body, preview: true });
      if (values.json) printResult(values, preview);
      else process.stdout.write(`${preview.matched} event${preview.matched === 1 ? '' : 's'} match.\n`);
      return 0;
    }
    const started = await call<Replay>('POST', path, body);
    if (!values.json)
      process.stdout.write(`Replay ${started.id} started: ${started.matched} events matched.\n`);
    const { replay, interrupted } = await follow(
      call,
      `${path}/${encodeURIComponent(started.id)}`,
      started,
      values.json === true,
    );
    if (values.json) printResult(values, replay);
    else
      process.stdout.write(
        `Replay ${replay.id} ${replay.status}: ${replay.queued} queued, ${replay.skipped} skipped of ${replay.matched}.\n`,
      );
    return interrupted ? 130 : 0;
  },
};

function columns(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

const ATTEMPT_FILTERS = {
  webhook: 'webhook_id',
  outcome: 'outcome',
  type: 'event_type',
  'status-class': 'status_class',
  store: 'store_id',
  app: 'app_id',
} as const;

export const attemptsCommand: Command = {
  name: 'attempts',
  summary: "List the delivery attempts of the account's endpoints, newest first, as a table.",
  usage:
    '[--webhook ID] [--outcome O] [--type a,b] [--status-class 4xx] [--store ID] [--app ID] [--since TIME] [--until TIME] [--limit N] [--mode test|live] [--api-url URL] [--json]',
  help: `Options:
  --webhook ID        only this endpoint's (wh_...)
  --outcome O         succeeded, failed, timeout, network_error or refused
  --type a,b          only these event types; order.* for a family
  --status-class C    only answers of this class: 2xx, 3xx, 4xx or 5xx
  --store ID          only attempts of deliveries from this store (store_...)
  --app ID            only attempts of this app's webhooks (app_...)
  --since TIME        attempts at or after this: a time or a duration back from now (2h, 7d)
  --until TIME        attempts before this, in the same forms
  --limit N           how many (1-100, default 25)
  --mode test|live    the mode (default: test)
  --api-url URL       the service (default: where \`svc login\` signed in)
  --json              print the page as JSON ({"items","has_more","next_cursor",...})

One row per attempt: when, event type, attempt number, outcome, HTTP status, duration, endpoint, store and
the attempt's id. Open its delivery on the dashboard's Attempts view. Needs \`svc login\` first.`,
  options: {
    webhook: { type: 'string' },
    outcome: { type: 'string' },
    type: { type: 'string' },
    'status-class': { type: 'string' },
    store: { type: 'string' },
    app: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
    mode: { type: 'string' },
    'api-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const query = new URLSearchParams();
    for (const [option, param] of Object.entries(ATTEMPT_FILTERS)) {
      const value = values[option];
      if (typeof value === 'string' && value !== '') query.set(param, value);
    }
    for (const name of ['since', 'until'] as const) {
      const at = timeOption(name, values[name]);
      if (at) query.set(name, at);
    }
    const limit = values.limit === undefined ? 25 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new CliError('--limit must be an integer between 1 and 100.');
    query.set('limit', String(limit));
    const { base, session, mode } = target(values);
    const page = await callApi<{ items: Attempt[]; has_more: boolean; count?: number }>(
      base,
      session,
      'GET',
      `/api/v1/merchant/webhook-attempts?${query}`,
      undefined,
      mode,
    );
    if (values.json) {
      printResult(values, page);
      return 0;
    }
    if (page.items.length === 0) {
      process.stdout.write('No attempts match.\n');
      return 0;
    }
    const rows = page.items.map((a) => [
      a.created_at,
      a.event_type,
      String(a.attempt),
      a.outcome,
      a.response_status === null ? '-' : String(a.response_status),
      `${a.duration_ms} ms`,
      a.webhook_id,
      a.store_id ?? '-',
      a.id,
    ]);
    const header = ['TIME', 'EVENT', '#', 'OUTCOME', 'STATUS', 'DURATION', 'WEBHOOK', 'STORE', 'ID'];
    process.stdout.write(columns([header, ...rows]));
    if (page.has_more)
      process.stdout.write(`More match: narrow the filters or raise --limit (at most 100).\n`);
    return 0;
  },
};
