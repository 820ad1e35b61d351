// Outbound HTTP for deliveries: one undici Agent per process (keep-alive connections pooled per origin),
// redirects never followed (undici's request does not follow them; a 3xx is a failure), a per-attempt timeout
// counted in this process's time (attemptDeadline), and the SSRF guard inside the connector: the DNS answer
// is checked and the socket connects to exactly the addresses that passed, so a name cannot resolve to a
// public address at check time and a private one at connect time. Global fetch is not used: it was about 7x
// slower than an undici Agent here.
// A request may carry a write deadline: undici asks the request's handler to start just before it writes the
// request to its connection (after the connect, if a new one was needed), and a request past its deadline
// there is refused unwritten, its connection kept for the next.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import type { Clock } from '../../lib/time.ts';
import { BlockedAddressError, isBlockedAddress } from './url-guard.ts';

/** The first 16 KiB of an answer are kept with the attempt (API.md section 7). */
export const RESPONSE_BODY_LIMIT = 16 * 1024;
// Bodies up to 256 KiB are drained so the connection can be reused; a bigger one costs a new connection.
const DRAIN_LIMIT = 256 * 1024;

export interface SendResult {
  startedAt: Date;
  durationMs: number;
  status: number | null;
  body: string | null;
  /** The answer's headers (at most 50, each value cut at 1 KiB), for the delivery view. */
  headers: Record<string, string> | null;
  error: string | null;
  /** Seconds from a Retry-After header of a 429 or 503, if any. */
  retryAfter: number | null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address))) {
      return callback(new BlockedAddressError(`${hostname} resolves to a private or reserved address`), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** A request that was not written by its deadline: it never reached the receiver. */
export class WriteDeadlineError extends Error {
  constructor() {
    super('the request was not written by its deadline');
    this.name = 'WriteDeadlineError';
  }
}

type Handler = Dispatcher.DispatchHandler;
/** The arguments undici passes to a handler's method `K`. */
type Args<K extends keyof Handler> = Parameters<NonNullable<Handler[K]>>;

/** The request's handler, refusing to start once `late()` says its deadline passed. */
class WriteBy implements Handler {
  private readonly handler: Handler;
  private readonly late: () => boolean;

  constructor(handler: Handler, late: () => boolean) {
    this.handler = handler;
    this.late = late;
  }

  // Thrown here, undici fails the request without writing it and keeps the connection (an abort would close it).
  onRequestStart(...args: Args<'onRequestStart'>) {
    if (this.late()) throw new WriteDeadlineError();
    return this.handler.onRequestStart?.(...args);
  }
  onRequestUpgrade(...args: Args<'onRequestUpgrade'>) {
    return this.handler.onRequestUpgrade?.(...args);
  }
  onResponseStart(...args: Args<'onResponseStart'>) {
    return this.handler.onResponseStart?.(...args);
  }
  onResponseData(...args: Args<'onResponseData'>) {
    return this.handler.onResponseData?.(...args);
  }
  onResponseEnd(...args: Args<'onResponseEnd'>) {
    return this.handler.onResponseEnd?.(...args);
  }
  onResponseError(...args: Args<'onResponseError'>) {
    return this.handler.onResponseError?.(...args);
  }
}

type WithDeadline = Dispatcher.DispatchOptions & { late?: () => boolean };

const writeDeadline: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts: WithDeadline, handler) =>
  dispatch(opts, opts.late ? new WriteBy(handler, opts.late) : handler);

export function createAgent(options: { timeoutMs: number; allowPrivate: boolean }): Dispatcher {
  const base = buildConnector({
    timeout: options.timeoutMs,
    ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
  });
  const connect: buildConnector.connector = (opts, callback) => {
    // A literal address never goes through lookup: check it here.
    if (!options.allowPrivate && isBlockedAddress(opts.hostname)) {
      callback(new BlockedAddressError(`${opts.hostname} is a private or reserved address`), null);
      return;
    }
    base(opts, callback);
  };
  return new Agent({
    connect,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 30_000,
    pipelining: 1,
  }).compose(writeDeadline);
}

/** Seconds the receiver asked for, a number or an HTTP date read against `now` (epoch ms). */
function retryAfterSeconds(
  status: number,
  header: string | string[] | undefined,
  now: number,
): number | null {
  if ((status !== 429 && status !== 503) || header === undefined) return null;
  const raw = Array.isArray(header) ? header[0]! : header;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

const HEADERS_KEPT = 50;
const HEADER_VALUE_LIMIT = 1024;

function keptHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (++n > HEADERS_KEPT) break;
    kept[name] = (Array.isArray(value) ? value.join(', ') : value)
      .slice(0, HEADER_VALUE_LIMIT)
      .replace(/\0/g, '');
  }
  return kept;
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof BlockedAddressError) return `blocked_address: ${err.message}`;
  const e = err as { name?: string; code?: string; message?: string };
  if (
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  )
    return `timeout: no complete answer within ${timeoutMs / 1000} s`;
  const code = e?.code ?? e?.name ?? 'error';
  return `${code}: ${String(e?.message ?? err)
    .split('\n')[0]!
    .slice(0, 300)}`;
}

async function readBody(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_BODY_LIMIT) {
      const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    total += chunk.length;
    if (total > DRAIN_LIMIT) break; // leaving the loop destroys the stream
  }
  // PostgreSQL text cannot hold NUL characters.
  return Buffer.concat(kept).toString('utf8').replace(/\0/g, '');
}

// The attempt's deadline is counted in steps of 1/8 of the timeout: a hold costs the endpoint at most one step.
const DEADLINE_STEPS = 8;
// A step that ends later than this found the process held: on the 2-core test host at a load of 23, the 250 ms
// timers of an idle process fired at most 58 ms late (p99 9 ms, 80 timers).
const HELD_MS = 100;

/**
 * The attempt's deadline: aborts once the request has had `timeoutMs` of this process's time, in which it could
 * write the request and read the answer. While the process is held (on the embedded database, its statements
 * run on this thread; a starved CPU) it writes and reads nothing, and once free it runs its timers before it
 * looks at its sockets: on the wall clock, attempts started in a hold were timed out before their requests were
 * written, and the endpoint was charged with the sender's hold (paced to 1/s, pace_reason "timeout"; the
 * reasons and runs are in docs/decisions/0057-attempt-timeout-is-the-endpoints-time.md). So the time is
 * counted in steps, as undici counts its own connect, headers and body timeouts in turns of the event loop: a
 * step that ends more than HELD_MS late counts as its own length only. A step that fires early (Node counts
 * timers from the loop's cached time) counts what passed. An attempt outlasts its timeout by its process's
 * holds, as it did before by the last one.
 */
function attemptDeadline(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const step = timeoutMs / DEADLINE_STEPS;
  let left = timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number): void => {
    const from = performance.now();
    timer = setTimeout(() => {
      const took = performance.now() - from;
      left -= took > ms + HELD_MS ? ms : took;
      if (left > 0) arm(Math.min(step, left));
      else controller.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, 'TimeoutError'));
    }, ms);
    timer.unref();
  };
  arm(step);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * One POST and its answer. With `writeBy` (epoch ms on `clock`), a request not written by then is not sent at
 * all: the promise rejects with WriteDeadlineError.
 */
export async function sendOnce(
  agent: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  clock: Clock,
  writeBy?: number,
): Promise<SendResult> {
  const startedAt = new Date(clock.now());
  const t0 = performance.now();
  const done = (partial: Omit<SendResult, 'startedAt' | 'durationMs'>): SendResult => ({
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    ...partial,
  });
  const deadline = attemptDeadline(timeoutMs);
  try {
    const res = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers,
      body,
      signal: deadline.signal,
      ...(writeBy === undefined ? {} : { late: () => clock.now() > writeBy }),
    });
    let text: string | null = null;
    let error: string | null = null;
    try {
      // A declared small body is read in one piece: iterating it chunk by chunk cost ~4% of a worker's CPU
      // in async-iterator ticks.
      const length = Number(res.headers['content-length']);
      if (Number.isInteger(length) && length <= DRAIN_LIMIT) {
        const bytes = Buffer.from(await res.body.arrayBuffer());
        text = bytes.subarray(0, RESPONSE_BODY_LIMIT).toString('utf8').replace(/\0/g, '');
      } else {
        text = await readBody(res.body);
      }
    } catch (err) {
      error = describe(err, timeoutMs);
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return done({
      status: res.statusCode,
      body: text,
      headers: keptHeaders(res.headers),
      error: error ?? (ok ? null : `http_status: the endpoint answered ${res.statusCode}`),
      retryAfter: retryAfterSeconds(res.statusCode, res.headers['retry-after'], clock.now()),
    });
  } catch (err) {
    if (err instanceof WriteDeadlineError) throw err;
    return done({
      status: null,
      body: null,
      headers: null,
      error: describe(err, timeoutMs),
      retryAfter: null,
    });
  } finally {
    deadline.clear();
  }
}
