// One read replica (API.md 12.1): a small pool of its own, a Kysely over it that falls back to the primary, and
// the probe that says whether it may serve. src/db/replicas.ts holds the set and decides which read goes where.
//
// The fallback is below Kysely, in the pool it is given: a query that fails on the replica because the
// replica is gone (connection refused, terminated, a timeout: isConnectionLoss) marks the replica down and
// is run again, once, on the primary, so that the read answers as if the replica had never been chosen. A
// query the standby cancelled for a conflict with recovery (a vacuum replayed under a long read) is run on
// the primary too, and leaves the replica in use. Any other error (a fault in the SQL) is the query's own.
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { DB } from '../schema.ts';
import type { ReplicaStatus } from '../lib/metrics.ts';
import { isConnectionLoss } from './connection-loss.ts';
import type { Db } from './executor.ts';
import { createPool } from './pg-pool.ts';

// Dashboard lists and exports, a few at a time per process: the primary's pool keeps the 20 for the rest.
const POOL_SIZE = 5;
// A replica that does not take a connection in 2 s is treated as down; the read goes to the primary.
const CONNECT_TIMEOUT_MS = 2000;
// A probe slower than this finds the replica down: its reads would be as slow.
export const PROBE_TIMEOUT_MS = 1000;

/** `promise`, or a rejection once `ms` have passed (the promise's own later failure is then ignored). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  void promise.catch(() => {});
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a replica tells its set: its state changed, and a read of its went to the primary after all. */
export interface ReplicaEvents {
  changed(replica: Replica, previous: ReplicaStatus['state'], why: string): void;
  fellBack(): void;
}

/** `host:port` of the URL (the socket directory for a Unix socket): never its user or password. */
export function replicaName(url: string): string {
  // a user and no host (a Unix socket named by ?host=) is not a URL to WHATWG's parser: put a host in
  const u = new URL(url.replace(/^(postgres(?:ql)?:\/\/[^/@]*@)\//, '$1localhost/'));
  const host = u.searchParams.get('host') || u.hostname || 'localhost';
  return `${host}:${u.port || u.searchParams.get('port') || '5432'}`;
}

/** An LSN (`16/B374D848`) as a number that compares. */
export function lsnValue(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

// SQLSTATEs of a standby cancelling a read that conflicts with what it replays: 40001 (a snapshot the replay
// removed) and 40P01 (a lock the replay needed), each "canceling statement due to conflict with recovery".
function isRecoveryConflict(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return (
    (code === '40001' || code === '40P01') && typeof message === 'string' && message.includes('recovery')
  );
}

type QueryResult = { rows: unknown[]; rowCount: number | null; command?: string };

/** A connection of the replica for one Kysely query (or transaction), and the primary when the replica fails. */
class FallbackClient {
  private client: pg.PoolClient | undefined;
  private readonly replica: Replica;
  constructor(replica: Replica, client: pg.PoolClient | undefined) {
    this.replica = replica;
    this.client = client;
  }

  async query(text: string, params: readonly unknown[]): Promise<QueryResult> {
    const client = this.client;
    if (client) {
      try {
        return await client.query(text, params as unknown[]);
      } catch (err) {
        const lost = isConnectionLoss(err);
        if (!lost && !isRecoveryConflict(err)) throw err;
        if (lost) {
          this.client = undefined;
          client.release(err as Error); // destroyed, not returned to the pool
          this.replica.failed(err);
        }
      }
    }
    return this.replica.onPrimary(text, params);
  }

  release(discard?: boolean): void {
    this.client?.release(discard);
    this.client = undefined;
  }
}

/** What Kysely's PostgresDialect asks of a pool: connect, and end. */
class FallbackPool {
  private readonly replica: Replica;
  private readonly pool: pg.Pool;
  constructor(replica: Replica, pool: pg.Pool) {
    this.replica = replica;
    this.pool = pool;
  }
  async connect(): Promise<FallbackClient> {
    try {
      return new FallbackClient(this.replica, await this.pool.connect());
    } catch (err) {
      if (!isConnectionLoss(err)) throw err;
      this.replica.failed(err);
      return new FallbackClient(this.replica, undefined);
    }
  }
  async end(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }
}

interface ProbeRow {
  standby: boolean;
  replayed: string | null;
  since_replayed_ms: number | null;
}

export class Replica {
  readonly name: string;
  /** Reads through the replica, falling back to the primary per query. */
  readonly db: Db;
  private readonly pool: pg.Pool;
  private readonly primary: Db;
  private readonly events: ReplicaEvents;
  private current: ReplicaStatus['state'] = 'down';
  private lag: number | null = null;

  constructor(name: string, url: string, primary: Db, events: ReplicaEvents) {
    this.name = name;
    this.primary = primary;
    this.events = events;
    this.pool = createPool(url, { max: POOL_SIZE, connectTimeoutMs: CONNECT_TIMEOUT_MS });
    const pool = new FallbackPool(this, this.pool) as unknown as pg.Pool;
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  }

  status(): ReplicaStatus {
    return { name: this.name, state: this.current, lagMs: this.lag };
  }

  /** A query on the replica found it gone: out of use until a probe answers. */
  failed(err: unknown): void {
    this.set('down', null, `a read failed: ${String((err as Error).message ?? err).split('\n')[0]}`);
  }

  /** The query a replica could not serve, once, on the primary. */
  async onPrimary(text: string, params: readonly unknown[]): Promise<QueryResult> {
    this.events.fellBack();
    const result = await this.primary.executeQuery(CompiledQuery.raw(text, [...params]));
    return { rows: result.rows, rowCount: Number(result.numAffectedRows ?? 0) };
  }

  /**
   * The replica's lag against `primaryLsn`, the primary's flushed WAL read just before: none when the replica
   * has replayed that far (an idle primary, or a replica that keeps up); otherwise, and when the primary did
   * not answer (`primaryLsn` undefined), the time since the last commit it replayed, which bounds how stale it
   * is from above. A server that is not a standby is not a replica: down.
   */
  async probe(primaryLsn: bigint | undefined, maxLagMs: number): Promise<void> {
    let row: ProbeRow | undefined;
    try {
      row = await this.ask();
    } catch (err) {
      this.set('down', null, `its probe failed: ${String((err as Error).message ?? err).split('\n')[0]}`);
      return;
    }
    if (!row?.standby || row.replayed === null) {
      this.set('down', null, 'it is not a standby (pg_is_in_recovery() is false)');
      return;
    }
    const caughtUp = primaryLsn !== undefined && lsnValue(row.replayed) >= primaryLsn;
    const lag = caughtUp ? 0 : row.since_replayed_ms;
    const rounded = lag === null ? null : Math.max(0, Math.round(lag));
    if (rounded !== null && rounded <= maxLagMs) this.set('up', rounded, 'it replays within the allowed lag');
    else this.set('lagging', rounded, `its replay lag is over ${maxLagMs} ms`);
  }

  private async ask(): Promise<ProbeRow | undefined> {
    const query = this.pool.query<ProbeRow>(
      `select pg_is_in_recovery() as standby,
              pg_last_wal_replay_lsn()::text as replayed,
              (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8
                as since_replayed_ms`,
    );
    return (await within(query, PROBE_TIMEOUT_MS)).rows[0];
  }

  private set(state: ReplicaStatus['state'], lag: number | null, why: string): void {
    const previous = this.current;
    this.current = state;
    this.lag = lag;
    if (previous !== state) this.events.changed(this, previous, why);
  }

  async close(): Promise<void> {
    // Kysely ends its pool only if it ran a query; the probes used the pool directly.
    await this.db.destroy();
    if (!this.pool.ending) await this.pool.end();
  }
}
