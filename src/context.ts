// What every use case needs from its surroundings, created once per process (or per test app) by server.ts.
// Modules keep their per-process state (caches, batchers, pools) in what their create(ctx) makes, so two
// apps in one test process behave as two processes.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { Bus } from './db/bus.ts';
import type { Reads } from './db/replicas.ts';
import type { Metrics } from './lib/metrics.ts';
import type { Clock } from './lib/time.ts';

export interface Context {
  readonly config: Config;
  readonly db: Db;
  /**
   * The handle of a read that tolerates lag (API.md 12.1, src/db/replicas.ts): `reads.readsFor(merchantId)`,
   * a fresh replica's or the primary's. Only the listed reads take it; everything else uses `db`.
   */
  readonly reads: Reads;
  readonly bus: Bus;
  readonly log: FastifyBaseLogger;
  /** This service's Prometheus registry and its pre-bound counters. */
  readonly metrics: Metrics;
  /**
   * The time of every decision (expiries, budgets, leases, schedules, purges), in JS and as SQL's parameter:
   * `systemClock`, or a test's clock that the test moves.
   */
  readonly clock: Clock;
  /**
   * `draining` from SIGTERM until the API stops accepting (SVC_SHUTDOWN_DELAY_MS): /readyz answers 503 and
   * every answer closes its connection, so that load balancers and keep-alive clients go elsewhere.
   */
  readonly lifecycle: { draining: boolean };
}
