// `svc listen --forward-to URL`: the account's test-mode events, streamed from the service already signed
// (GET /api/v1/merchant/webhooks/listen), POSTed untouched to a local URL one at a time in order, one line
// printed per event, the local answer reported back so the delivery is recorded. The stream reconnects with
// Last-Event-ID and the service replays what was missed (up to an hour); an event seen twice (a replay
// overlapping what arrived) is forwarded once. With `--app app_...`, the events one of the account's test
// apps receives from its installations, with the bodies its webhooks get.
import { CliError, type Command } from './command.ts';
import { systemClock } from '../lib/time.ts';
import { apiError, apiUrl, callApi, requireSession, type StoredSession } from './session.ts';

interface Frame {
  delivery_id: string;
  webhook_id: string;
  event_type: string;
  headers: Record<string, string>;
  body: string;
}

interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/** Splits a text/event-stream into events (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let id: string | undefined;
  let data: string[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event, id, data: data.join('\n') };
        event = 'message';
        id = undefined;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}

const FORWARD_TIMEOUT_MS = 30_000;
const BODY_REPORTED = 16 * 1024;

async function forward(url: string, frame: Frame) {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: frame.headers,
      body: frame.body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const text = await res.text().catch(() => '');
    return {
      status: res.status,
      duration_ms: Math.round(performance.now() - started),
      response_body: text.slice(0, BODY_REPORTED),
    };
  } catch (err) {
    const cause = (err as Error & { cause?: { code?: string } }).cause;
    return {
      status: null,
      duration_ms: Math.round(performance.now() - started),
      error: cause?.code ?? (err as Error).name ?? 'request failed',
    };
  }
}

export const listenCommand: Command = {
  name: 'listen',
  summary: "Forward the account's test-mode events, signed, to a local URL.",
  usage: '--forward-to URL [--app app_...] [--events a,b] [--api-url URL] [--print-secret]',
  help: `Options:
  --forward-to URL  where to POST each event, e.g. http://localhost:3000/webhooks
  --app app_...     one of your test-mode apps: the events it receives from the stores that installed it
                    (each body with app_id, grant_id, store_id), rather than your account's own
  --events a,b      only these event types (default: every event)
  --api-url URL     the service (default: where \`svc login\` signed in)
  --print-secret    print the signing secret of this session and exit

Each event is POSTed with the exact body and webhook-id, webhook-timestamp and webhook-signature headers
of a delivery, signed with the secret printed at start: configure your receiver with it. The secret is the
same for every \`svc listen\` of one \`svc login\`. One line per event: time, type, event id, the local
answer's status, duration. Test mode only; needs \`svc login\` first. Stop with Ctrl-C.`,
  options: {
    'forward-to': { type: 'string' },
    app: { type: 'string' },
    events: { type: 'string' },
    'api-url': { type: 'string' },
    'print-secret': { type: 'boolean' },
  },
  async run(values) {
    const printOnly = values['print-secret'] === true;
    const target = typeof values['forward-to'] === 'string' ? values['forward-to'] : undefined;
    if (!printOnly && !target)
      throw new CliError('--forward-to URL is required, e.g. --forward-to http://localhost:3000/webhooks.');
    if (target && !/^https?:\/\//.test(target))
      throw new CliError('--forward-to must be an http:// or https:// URL.');
    const session = requireSession();
    const base = apiUrl(values['api-url'], session);
    const query = new URLSearchParams();
    if (typeof values.events === 'string') query.set('events', values.events);
    if (typeof values.app === 'string') query.set('app_id', values.app);
    if (target) query.set('forward_to', target);
    return listen(base, session, query, target, printOnly);
  },
};

async function listen(
  base: string,
  session: StoredSession,
  query: URLSearchParams,
  target: string | undefined,
  printOnly: boolean,
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const seen = new Map<string, number>(); // event id -> when, for the replay overlap; kept one hour
  let lastEventId: string | undefined;
  let announced = false;
  let delay = 500;
  // Forwarding runs one event at a time, in order, while the stream keeps reading.
  let chain: Promise<void> = Promise.resolve();

  while (!stop.signal.aborted) {
    let res: Response;
    try {
      res = await fetch(`${base}/api/v1/merchant/webhooks/listen?${query}`, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${session.token}`,
          'x-svc-mode': 'test',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: stop.signal,
      });
    } catch {
      if (stop.signal.aborted) break;
      process.stderr.write(`Cannot reach ${base}; retrying in ${delay} ms.\n`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
      continue;
    }
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let parsed: Parameters<typeof apiError>[1];
      try {
        parsed = JSON.parse(text) as Parameters<typeof apiError>[1];
      } catch {
        parsed = undefined;
      }
      // 4xx will not get better by retrying; 5xx (a restart, the database away) may.
      if (res.status < 500) throw apiError(res.status, parsed, { base, session });
      process.stderr.write(`The service answered ${res.status}; retrying in ${delay} ms.\n`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
      continue;
    }
    delay = 500;
    try {
      for await (const ev of sseEvents(res.body)) {
        if (ev.event === 'secret') {
          const { secret, webhook_id } = JSON.parse(ev.data) as { secret: string; webhook_id: string };
          if (printOnly) {
            process.stdout.write(`${secret}\n`);
            stop.abort();
            break;
          }
          if (!announced)
            process.stdout.write(
              `Ready. Forwarding test events to ${target} (listener ${webhook_id}).\nSigning secret: ${secret}\n`,
            );
          else process.stderr.write(`Reconnected (listener ${webhook_id}).\n`);
          announced = true;
          continue;
        }
        if (ev.event !== 'webhook' || !ev.id) continue;
        lastEventId = ev.id;
        const now = systemClock.now();
        const frame = JSON.parse(ev.data) as Frame;
        const eventId = ev.id;
        const report = (outcome: object) =>
          callApi(
            base,
            session,
            'POST',
            `/api/v1/merchant/webhooks/${frame.webhook_id}/deliveries/${frame.delivery_id}/report`,
            outcome,
          ).catch((err: unknown) => {
            process.stderr.write(`Could not record the answer of ${eventId}: ${(err as Error).message}\n`);
          });
        if (seen.has(ev.id)) {
          chain = chain.then(async () => {
            await report({ duplicate: true, status: null, duration_ms: 0 });
          });
          continue;
        }
        seen.set(ev.id, now);
        for (const [id, at] of seen) if (at < now - 3_600_000) seen.delete(id);
        chain = chain.then(async () => {
          const outcome = await forward(target!, frame);
          const status = outcome.status === null ? `error ${outcome.error}` : String(outcome.status);
          process.stdout.write(
            `${new Date(systemClock.now()).toISOString()}  ${frame.event_type}  ${eventId}  -> ${status}  ${outcome.duration_ms} ms\n`,
          );
          await report(outcome);
        });
      }
    } catch {
      // the stream broke (the service restarted, the network went away): reconnect below
    }
    if (stop.signal.aborted) break;
    process.stderr.write(`The stream closed; reconnecting${lastEventId ? ` after ${lastEventId}` : ''}.\n`);
    await new Promise((r) => setTimeout(r, delay));
  }
  await chain;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}
