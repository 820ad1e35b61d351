// Composition: configuration -> logger -> database (migrated) -> context -> modules (src/modules.ts, in their
// declared order, then each one's start) -> HTTP app and background loops. Stopping runs the other way, each
// step awaited: drain HTTP while the loops stop, then each module's stop (buffers flushed, pools and agents
// closed) in reverse order of creation, then the database. Used by main.ts, by the system tests that run
// several processes, and by the benchmarks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { runsLoops, servesApi, type Config } from './config.ts';
import type { Context } from './context.ts';
import { openDatabase, type Database } from './db/database.ts';
import { primaryReads, replicaReads, type Reads } from './db/replicas.ts';
import { buildApp } from './app.ts';
import { buildProbeApp } from './probes.ts';
import { createLogger } from './http/logging.ts';
import { Metrics } from './lib/metrics.ts';
import { systemClock, type Clock } from './lib/time.ts';
import { createModules, type Composition } from './modules.ts';
import type { Module } from './modules/module.ts';
import { readQueueDepth } from './modules/delivery/index.ts';
import { checkMasterKeys } from './master-keys.ts';
import type { Compilers } from './http/compilers.ts';

export interface Service {
  app: FastifyInstance;
  ctx: Context;
  database: Database;
  /** The modules as created, for tests that drive a module's state (a flush, a sweep) directly. */
  modules: readonly Module[];
  /** `http://host:port` of the metrics listener, when SVC_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /**
   * Stops the HTTP server and the background loops together, then the modules, then the database. With
   * `delayMs`, the process is draining from now (ctx.lifecycle): the loops stop at once, the API serves
   * `delayMs` more before it stops accepting (SVC_SHUTDOWN_DELAY_MS, for a load balancer's probe to see it).
   */
  close(delayMs?: number): Promise<void>;
}

export interface ServiceOptions {
  /** Where log lines go (tests read them); standard output otherwise. */
  logStream?: DestinationStream;
  /** The clock of JS-side expiry checks; the system's otherwise. */
  clock?: Clock;
  /** What compiles the routes' schemas, shared with the other services of the process given the same. */
  compilers?: Compilers;
}

/** What the start line says: the settings that explain behaviour, never a secret (keys, tokens, URLs' passwords). */
function startupSettings(config: Config, database: Database) {
  return {
    database: database.kind,
    role: config.role,
    public_url: config.publicUrl,
    workers: runsLoops(config),
    metrics_port: config.metricsPort ?? null,
    read_replicas: config.replicas.urls.length,
    rate_limit: config.rateLimit
      ? { ...config.publicRateLimit, shared: config.redisUrl !== undefined }
      : 'off',
    master_keys: config.masterKeys.length,
    audit_signing_keys: config.auditSigningKeys.length,
    signup: config.signup,
    webhook_timeout_ms: config.webhookTimeoutMs,
    webhook_retry_schedule: config.webhookRetrySchedule.join(','),
    log_level: config.logLevel,
  };
}

/**
 * The replicas' reads when DATABASE_REPLICA_URL names any, in a process that serves the API: a `worker` serves
 * none of the reads that may use them. The embedded database has none (the configuration refuses it).
 */
function openReads(config: Config, database: Database, metrics: Metrics, log: FastifyBaseLogger): Reads {
  if (config.replicas.urls.length === 0 || !servesApi(config)) return primaryReads(database.db);
  if (database.kind !== 'pg') throw new Error('read replicas need PostgreSQL: DATABASE_URL is not set');
  return replicaReads({ db: database.db, bus: database.bus, settings: config.replicas, metrics, log });
}

// `GET /metrics` on a listener of its own, so the API port can never expose it (API.md section 10).
async function startMetricsListener(config: Config, metrics: Metrics): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metricsPort, config.host, () => resolve());
  });
  return server;
}

/** One step of the stop: its failure is logged and the next steps still run. */
async function settle(log: FastifyBaseLogger, step: Promise<void>, name: string): Promise<void> {
  try {
    await step;
  } catch (err) {
    log.warn({ err }, `stopping ${name} failed`);
  }
}

export async function createService(
  config: Config,
  database?: Database,
  options: ServiceOptions = {},
): Promise<Service> {
  const log = createLogger(config.logLevel, options.logStream);
  const db = database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const metrics = new Metrics();
  let reads: Reads;
  try {
    reads = openReads(config, db, metrics, log);
  } catch (err) {
    if (!database) await db.close();
    throw err;
  }
  const ctx: Context = {
    config,
    db: db.db,
    reads,
    bus: db.bus,
    metrics,
    log,
    clock: options.clock ?? systemClock,
    lifecycle: { draining: false },
  };
  let composition: Composition;
  try {
    await reads.start();
    await checkMasterKeys(ctx);
    composition = createModules(ctx);
    for (const m of composition.modules) await m.start?.();
  } catch (err) {
    await reads.close();
    if (!database) await db.close();
    throw err;
  }
  // A worker serves no API: its one listener answers the probes and the metrics (src/probes.ts).
  const api = servesApi(config);
  const app = api ? await buildApp(ctx, composition, options.compilers) : await buildProbeApp(ctx);
  metrics.setQueueProbe(() => readQueueDepth(ctx));
  metrics.setPoolProbe(() => db.poolStats?.());
  metrics.setReplicaProbe(() => reads.status());
  db.bus.onLost(() =>
    app.log.warn('LISTEN connection lost: reconnecting; cross-process signals wait until then'),
  );
  db.bus.onReset(() => {
    metrics.listenResets.inc();
    app.log.warn(
      'LISTEN connection restored after a loss: notifications of the gap were missed, caches dropped',
    );
  });
  // Every module's loops are the workers' (docs/decisions/0160-roles-and-their-loops.md): an `api` process runs
  // none, and keeps only what records its own calls (the request log's buffer, last uses), made by `create`.
  const background = runsLoops(config) ? composition.modules.flatMap((m) => m.background ?? []) : [];
  for (const loop of background) await loop.start();
  const metricsServer =
    api && config.metricsPort !== undefined ? await startMetricsListener(config, metrics) : undefined;
  const metricsAddress = metricsServer?.address() as AddressInfo | undefined;
  app.log.info({ settings: startupSettings(config, db) }, 'service started');
  let closing: Promise<void> | undefined;
  return {
    app,
    ctx,
    database: db,
    modules: composition.modules,
    metricsUrl: metricsAddress
      ? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${metricsAddress.port}`
      : undefined,
    close: (delayMs = 0) =>
      (closing ??= (async () => {
        log.info({ delay_ms: delayMs }, 'service stopping');
        ctx.lifecycle.draining = true;
        // No new work for the loops at once (the delivery workers give back what they hold, within the
        // shutdown grace); HTTP stops accepting after the delay and drains what is under way, each awaited.
        const http = (async () => {
          if (delayMs > 0) await delay(delayMs);
          await new Promise<void>((resolve) =>
            metricsServer ? metricsServer.close(() => resolve()) : resolve(),
          );
          await app.close();
        })();
        const loops = (async () => {
          for (const loop of background.toReversed()) await settle(log, loop.stop(), loop.name);
        })();
        await Promise.all([settle(log, http, 'HTTP'), loops]);
        for (const m of composition.modules.toReversed()) if (m.stop) await settle(log, m.stop(), m.name);
        await settle(log, reads.close(), 'read replicas');
        log.info('service stopped');
        await db.close();
      })()),
  };
}
