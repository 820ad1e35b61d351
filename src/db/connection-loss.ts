// What a lost or unreachable database looks like, in one place: the HTTP edge answers these with 503 and
// Retry-After rather than 500, the OAuth token endpoint with `temporarily_unavailable`, the pools throw away
// the connection that saw one, and the workers back off. Everything else stays an error of ours.

/** Seconds a client is asked to wait (Retry-After) while the database is unreachable. */
export const RETRY_AFTER_SECONDS = 5;

// Socket-level failures: the server is gone (refused, reset, broken pipe), unreachable, or too slow to answer.
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// Failures of connect(2) itself on a Unix socket (DATABASE_URL with `host=/var/run/postgresql`, Debian's
// default): ENOENT while the server is stopped (it removes its socket file), EAGAIN while its listen backlog
// is full. A stale socket file left by a crash answers ECONNREFUSED, above. The same codes from the file
// system are faults of ours, hence only from `connect`.
const SOCKET_CONNECT_CODES: ReadonlySet<string> = new Set(['ENOENT', 'EAGAIN']);

// SQLSTATEs that mean the server cannot serve this connection now: 57P01 admin_shutdown
// (pg_terminate_backend, a restart), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
// shutting down), 57P05 idle_session_timeout, 25P03 idle_in_transaction_session_timeout, 53300
// too_many_connections, 25006 read_only_sql_transaction (a failover left us on a standby).
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '25P03',
  '53300',
  '25006',
]);

// Messages of node-postgres and pg-pool that carry no code.
const MESSAGES = [
  /^Connection terminated/, // "Connection terminated unexpectedly", "... due to connection timeout"
  /not queryable/, // a query on a client whose connection already failed
  /^timeout exceeded when trying to connect/, // pg-pool's connectionTimeoutMillis
  /^Client was closed/,
  /^Query read timeout/,
];

/** Whether the error means the database (or the way to it) is unavailable, rather than a fault of ours. */
export function isConnectionLoss(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, severity, syscall } = e as {
      code?: unknown;
      message?: unknown;
      severity?: unknown;
      syscall?: unknown;
    };
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
      if (syscall === 'connect' && SOCKET_CONNECT_CODES.has(code)) return true;
    }
    // FATAL and PANIC end the session whatever the code (the server closes the socket right after).
    if (severity === 'FATAL' || severity === 'PANIC') return true;
    if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Exponential back-off for a background loop while the database is away: 250 ms doubling to 10 s, reset by
 * the first success. `ready()` says whether the loop may try now, so a 1 s poll does not hammer a database
 * that is restarting (nor fill the log with one warning a second). Its times are a timer's, on the monotonic
 * clock: they decide when to look again, not what is due.
 */
export class Backoff {
  private delay = 0;
  private until = 0;
  private readonly first: number;
  private readonly max: number;
  constructor(first = 250, max = 10_000) {
    this.first = first;
    this.max = max;
  }
  ready(now = performance.now()): boolean {
    return now >= this.until;
  }
  /** The delay before the next try, after a failure. */
  failed(now = performance.now()): number {
    this.delay = this.delay === 0 ? this.first : Math.min(this.delay * 2, this.max);
    this.until = now + this.delay;
    return this.delay;
  }
  succeeded(): void {
    this.delay = 0;
    this.until = 0;
  }
  get failing(): boolean {
    return this.delay > 0;
  }
}

/**
 * The last line: an 'error' event of a pg connection that nobody listens to (a path the pools' listeners
 * missed) would end the process, and with it every request in flight on every healthy connection. A lost
 * connection is logged and survived; any other uncaught error still stops the process, as it should.
 */
export function surviveConnectionLoss(log: {
  warn(o: object, m: string): void;
  fatal(o: object, m: string): void;
}) {
  process.on('uncaughtException', (err) => {
    if (isConnectionLoss(err)) {
      log.warn({ err: String(err.message).split('\n')[0] }, 'database connection lost outside a request');
      return;
    }
    log.fatal({ err }, 'uncaught exception');
    process.exitCode = 1;
    // let the log line out, then stop as Node would have
    setImmediate(() => process.exit(1));
  });
}
