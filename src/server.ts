// Composition: configuration -> database (migrated) -> context -> HTTP app and background loops. Used by
// main.ts, by the system tests that run several processes, and by the benchmarks.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Context } from './context.ts';
import { openDatabase, type Database } from './db/database.ts';
import { buildApp, type AppOptions } from './http/app.ts';
import { MODULES } from './modules/registry.ts';

export interface Service {
  app: FastifyInstance;
  ctx: Context;
  database: Database;
  /** Stops the background loops, then the HTTP server, then the database. */
  close(): Promise<void>;
}

export async function createService(
  config: Config,
  database?: Database,
  options: AppOptions = {},
): Promise<Service> {
  const db = database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  let app: FastifyInstance | undefined = undefined;
  const ctx: Context = {
    config,
    db: db.db,
    bus: db.bus,
    get log() {
      return app!.log;
    },
  };
  app = await buildApp(ctx, options);
  const stops: (() => Promise<void>)[] = [];
  if (config.workers) for (const m of MODULES) if (m.start) stops.push(await m.start(ctx));
  let closing: Promise<void> | undefined;
  return {
    app,
    ctx,
    database: db,
    close: () =>
      (closing ??= (async () => {
        await Promise.allSettled(stops.map((stop) => stop()));
        await app.close();
        await db.close();
      })()),
  };
}
