// One Kysely instance over one of two drivers: embedded PGlite when no DATABASE_URL is set, a pooled `pg`
// client otherwise. The same SQL and migrations run on both; the test suite runs every file on each.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import type { DB } from '../schema.ts';
import type { Db } from './executor.ts';
import { createPgBus, createPgliteBus, type Bus } from './bus.ts';
import { migrate, type RawSession } from './migrate.ts';
import { createPool } from './pg-pool.ts';
import { lockDataDir } from './data-dir-lock.ts';

export type { Db, Executor, Tx } from './executor.ts';

const INT8 = 20;
// COUNT(*) and BIGINT columns: numbers rather than strings or BigInts, the same on both drivers.
pg.types.setTypeParser(INT8, (value) => Number(value));

export interface Database {
  readonly kind: 'pglite' | 'pg';
  readonly db: Db;
  readonly bus: Bus;
  /** The `pg` pool's connections (metrics); the embedded database has one connection and no pool. */
  poolStats?(): { size: number; inUse: number; waiting: number };
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `undefined` keeps the database in memory. */
  dataDir?: string | undefined;
  /** An already-open PGlite (tests hand in a clone of a migrated template). */
  pglite?: PGlite;
  poolSize?: number;
  /** Skip migrations: the caller knows the schema is current. */
  migrated?: boolean;
  /** Who holds the data directory's lock (data-dir-lock.ts), named to whoever finds it taken. */
  role?: string;
}

// PostgreSQL's default 128 MB of shared buffers is, in PGlite, WebAssembly memory that is touched and never
// given back: `npm start` held 483-491 MB resident after its first start and 367-376 MB after later ones.
// With 32 MB, 368-407 and 276 MB; with 16 MB, 27 MB less again (a migrated database opened alone: 173 MB
// against 200). The database of a shop that runs embedded is a few hundred MB at most, and its pages stay in
// the operating system's cache behind the buffers (docs/decisions/0216-embedded-memory-liftoff-and-buffers.md).
const PGLITE_START = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** An embedded database: on `dataDir`, in memory when it is `undefined`, started from a dump when given one. */
export async function openPglite(dataDir: string | undefined, dump?: Blob): Promise<PGlite> {
  return PGlite.create(dataDir, {
    parsers: { [INT8]: (value: string) => Number(value) },
    startParams: PGLITE_START,
    ...(dump && { loadDataDir: dump }),
  });
}

/**
 * A data directory that holds no database yet gets one from a child process (make-embedded.ts), and is opened
 * here once made. Making it (initdb, then the migrations) takes PGlite's WebAssembly memory to about 1.1 GB,
 * which is not given back: the database alone held 442 MB resident after a first open, against 228 MB when a
 * child had made it (239 MB for any later open). A child's memory ends with it; a worker thread's did not
 * (347 MB after it ended), nor a close and reopen in the process (399 MB). Measured in docs/performance-history.md.
 */
async function makeInChild(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const script = fileURLToPath(new URL('./make-embedded.ts', import.meta.url));
  await promisify(execFile)(process.execPath, [script, dataDir]);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPg(options.databaseUrl, options);
  if (options.pglite || options.dataDir === undefined)
    return openEmbedded(options.pglite ?? (await openPglite(undefined)), options, () => {});
  const unlock = lockDataDir(options.dataDir, options.role ?? 'server');
  try {
    await makeInChild(options.dataDir);
    return await openEmbedded(await openPglite(options.dataDir), options, unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}

async function openEmbedded(pglite: PGlite, options: DatabaseOptions, unlock: () => void): Promise<Database> {
  if (!options.migrated) {
    await migrate({
      query: async (text, params) => (await pglite.query<Record<string, unknown>>(text, params)).rows,
      script: async (text) => {
        await pglite.exec(text);
      },
      release: () => {},
    });
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  const bus = createPgliteBus(pglite);
  return {
    kind: 'pglite',
    db,
    bus,
    async close() {
      await bus.close();
      await db.destroy();
      await pglite.close();
      unlock();
    },
  };
}

async function openPg(url: string, options: DatabaseOptions): Promise<Database> {
  // 20 connections: the delivery workers hold a few, the HTTP side needs the rest under load; measured in
  // bench/, more connections only added contention on a 2-core machine.
  const pool = createPool(url, { max: options.poolSize ?? 20 });
  if (!options.migrated) {
    const client = await pool.connect();
    const session: RawSession = {
      query: async (text, params) => (await client.query(text, params)).rows as Record<string, unknown>[],
      script: async (text) => {
        await client.query(text);
      },
      release: () => client.release(),
    };
    await migrate(session);
  }
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const bus = await createPgBus(url);
  return {
    kind: 'pg',
    db,
    bus,
    poolStats: () => ({
      size: pool.totalCount,
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async close() {
      await bus.close();
      // Kysely ends the pool only if it ran a query: one that served the migration alone kept its
      // connection for the 30 s idle timeout (and a copy of the database, as the tests' template, waited on it).
      await db.destroy();
      if (!pool.ending) await pool.end();
    },
  };
}
