// Every pg pool of the process comes from here, so that a lost connection is an error of one request and
// never of the process. pg-pool listens for 'error' on a client only while it is idle, and drops that
// listener while the client is checked out: a connection terminated during a query (pg_terminate_backend,
// a restart, a proxy reset) then emitted an 'error' nobody heard, which killed the process. Each client
// gets a listener of its own when it connects, and keeps it for its life.
import pg from 'pg';
import { isConnectionLoss } from './connection-loss.ts';

// A request waits at most 5 s for a connection (the server unreachable, or every connection busy), then
// answers 503: a load balancer's health check and a client's retry do better than a request hanging on.
const CONNECT_TIMEOUT_MS = 5_000;
// An idle connection is closed after 30 s, so a pool sized for a burst shrinks again, and connections
// left over from before an outage are not kept.
const IDLE_TIMEOUT_MS = 30_000;

export interface PoolOptions {
  max: number;
  allowExitOnIdle?: boolean;
  /** Server settings of every connection of the pool (sent at connect, as `-c name=value`). */
  settings?: Readonly<Record<string, string>>;
  /** Queries a connection serves before it is closed (and a new one opened when next needed). */
  maxUses?: number;
  /** How long a connect may take (5 s by default); a replica's pool gives up sooner and reads the primary. */
  connectTimeoutMs?: number;
}

export function createPool(url: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    // TCP keep-alive notices a peer that vanished without a FIN (a failover, a dropped NAT entry).
    keepAlive: true,
    allowExitOnIdle: options.allowExitOnIdle ?? false,
    ...(options.maxUses && { maxUses: options.maxUses }),
    ...(options.settings && {
      options: Object.entries(options.settings)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
    }),
  });
  // An idle client's error: pg-pool has already removed the client; the next query opens a new one.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    // A checked-out client's error: the query in flight fails with it, and the client, no longer
    // queryable, is destroyed by pg-pool at release rather than returned to the pool.
    client.on('error', () => {});
    // A FATAL message (57P01 on pg_terminate_backend or a restart) reaches the query in flight before the
    // socket closes: end the client now, so that the release that follows removes it from the pool
    // instead of handing a closing connection to the next request.
    (client as pg.Client).connection.on('errorMessage', (msg: unknown) => {
      if (isConnectionLoss(msg)) (client as pg.Client).end().catch(() => {});
    });
  });
  return pool;
}
