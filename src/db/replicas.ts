// Where a read that tolerates lag goes (API.md 12.1): the lists, details and exports of events, deliveries,
// attempts, the audit log and the request log, and webhook health, each through `ctx.reads.readsFor(merchant)`
// (docs/decisions/0190-read-replicas.md). Every other statement (writes, credential and session checks, claims,
// idempotency look-ups, every read not listed) keeps `ctx.db`, the primary, and never sees this.
//
// A read goes to a replica that answers and replays within SVC_REPLICA_MAX_LAG_MS, else to the primary. A
// merchant whose session or key wrote in the last SVC_REPLICA_STICKY_MS reads the primary (it reads its own
// writes): the HTTP edge calls `wrote` after each write it answers (src/http/read-your-writes.ts), and the
// mark is sent to the other processes over the bus, so a load balancer may send the next read anywhere.
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Metrics, ReplicaReads, ReplicaStatus } from '../lib/metrics.ts';
import { notify, type Bus } from './bus.ts';
import type { Db } from './executor.ts';
import { lsnValue, PROBE_TIMEOUT_MS, Replica, replicaName, within } from './replica.ts';

export interface Reads {
  /** The handle for one lag-tolerant read of this merchant's: a fresh replica's, or the primary's. */
  readsFor(merchantId: string): Db;
  /**
   * A session or key of this merchant wrote: its reads stay on the primary for SVC_REPLICA_STICKY_MS, here at
   * once and in the other processes when the returned promise (if any) has resolved.
   */
  wrote(merchantId: string): Promise<void> | undefined;
  /** Each replica as /readyz and the metrics show it; empty without replicas. */
  status(): readonly ReplicaStatus[];
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Without replicas (and always on the embedded database): every read on the primary, nothing to record. */
export function primaryReads(db: Db): Reads {
  return {
    readsFor: () => db,
    wrote: () => undefined,
    status: () => [],
    start: async () => {},
    close: async () => {},
  };
}

// A replica's state is re-measured this often: a replica that stops replaying is out of use within this
// much past the allowed lag, and one that comes back is used again as soon.
const PROBE_INTERVAL_MS = 500;
// At start the first probe is awaited this long at most: a replica that does not answer is simply down.
const FIRST_PROBE_MS = 3000;
const STICKY_CHANNEL = 'svc_reads_sticky';

export interface ReplicaReadsOptions {
  db: Db;
  bus: Bus;
  settings: Config['replicas'];
  metrics: Metrics;
  log: FastifyBaseLogger;
}

/** The djb2 hash of a merchant's id: each merchant keeps to one fresh replica, so its pages do not go back in time. */
function spread(merchantId: string, n: number): number {
  let h = 5381;
  for (let i = 0; i < merchantId.length; i++) h = ((h << 5) + h + merchantId.charCodeAt(i)) | 0;
  return Math.abs(h) % n;
}

/**
 * The merchants that wrote lately, by when their stickiness ends. Times are this process's monotonic clock:
 * the window is measured against the replicas' real lag, never a test's clock.
 */
class Stickiness {
  private readonly until = new Map<string, number>();
  private readonly sentAt = new Map<string, number>();
  private readonly ms: number;
  private sweptAt = 0;
  constructor(ms: number) {
    this.ms = ms;
  }
  mark(merchantId: string, now = performance.now()): void {
    if (this.ms === 0) return;
    this.until.set(merchantId, now + this.ms);
    // the marks that ran out, and the sends of past windows, are forgotten once a window
    if (now - this.sweptAt < this.ms) return;
    this.sweptAt = now;
    for (const [m, t] of this.until) if (t <= now) this.until.delete(m);
    for (const [m, t] of this.sentAt) if (now - t >= this.ms) this.sentAt.delete(m);
  }
  holds(merchantId: string, now = performance.now()): boolean {
    const t = this.until.get(merchantId);
    if (t === undefined) return false;
    if (t > now) return true;
    this.until.delete(merchantId);
    return false;
  }
  /** Whether the other processes should hear of this write: not again within a third of the window. */
  shouldSend(merchantId: string, now = performance.now()): boolean {
    if (this.ms === 0) return false;
    const last = this.sentAt.get(merchantId);
    if (last !== undefined && now - last < this.ms / 3) return false;
    this.sentAt.set(merchantId, now);
    return true;
  }
}

export function replicaReads(options: ReplicaReadsOptions): Reads {
  const { db, bus, settings, metrics, log } = options;
  const counters: ReplicaReads = metrics.replicaReads();
  const sticky = new Stickiness(settings.stickyMs);
  const names = settings.urls.map(replicaName);
  const replicas = settings.urls.map(
    (url, i) =>
      new Replica(names.indexOf(names[i]!) === i ? names[i]! : `${names[i]}#${i + 1}`, url, db, {
        changed(replica, previous, why) {
          const { state, lagMs } = replica.status();
          const line = { replica: replica.name, state, previous, lag_ms: lagMs };
          if (state === 'up') log.info(line, `read replica ${replica.name} in use: ${why}`);
          else log.warn(line, `read replica ${replica.name} out of use (${state}): ${why}`);
        },
        fellBack: () => counters.replicaFailed.inc(),
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let unlisten: (() => void) | undefined;

  async function probeAll(): Promise<void> {
    let primaryLsn: bigint | undefined;
    try {
      const query = sql<{ lsn: string }>`select pg_current_wal_flush_lsn()::text as lsn`.execute(db);
      const { rows } = await within(query, PROBE_TIMEOUT_MS);
      primaryLsn = lsnValue(rows[0]!.lsn);
    } catch {
      // the primary did not answer (busy or away): each replica's lag is the age of its last replayed commit
    }
    await Promise.all(replicas.map((r) => r.probe(primaryLsn, settings.maxLagMs)));
  }

  function loop(): void {
    timer = setTimeout(() => {
      running = probeAll().finally(() => {
        if (!stopped) loop();
      });
    }, PROBE_INTERVAL_MS);
  }

  return {
    readsFor(merchantId) {
      if (sticky.holds(merchantId)) {
        counters.sticky.inc();
        return db;
      }
      const fresh = replicas.filter((r) => r.status().state === 'up');
      if (fresh.length === 0) {
        counters.noFreshReplica.inc();
        return db;
      }
      counters.replica.inc();
      return fresh[spread(merchantId, fresh.length)]!.db;
    },
    wrote(merchantId) {
      sticky.mark(merchantId);
      if (!sticky.shouldSend(merchantId)) return undefined;
      // Not awaited by the write's transaction: the mark follows the commit, and a lost one costs a stale read.
      return notify(db, STICKY_CHANNEL, merchantId).catch(() => {});
    },
    status: () => replicas.map((r) => r.status()),
    async start() {
      unlisten = await bus.listen(STICKY_CHANNEL, (merchantId) => sticky.mark(merchantId));
      let first: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        first = setTimeout(resolve, FIRST_PROBE_MS);
      });
      await Promise.race([(running = probeAll()), bound]);
      clearTimeout(first);
      if (!stopped) loop();
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      unlisten?.();
      await running; // a probe under way finishes on open pools
      await Promise.all(replicas.map((r) => r.close()));
    },
  };
}
