// What a `svc` subcommand is, and the helpers the database-backed ones share.
import type { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import type { Context } from '../context.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { systemClock } from '../lib/time.ts';

export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  /** e.g. "merchant create" */
  name: string;
  /** One line, for `svc --help`. */
  summary: string;
  /** The arguments, after the name. */
  usage: string;
  /**
   * The options one per line, and anything else the user needs (printed by --help); a function when it needs
   * what is slow to load (the event catalog), so that other commands do not pay for it.
   */
  help: string | (() => Promise<string>);
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
  /** Set when the command takes positional arguments (named in usage). */
  positionals?: true;
  /** The values its positional argument may take, for shell completion (the event types of `trigger`). */
  values?(): Promise<string[]>;
  /** The exit status. */
  run(values: Values, positionals: string[]): Promise<number>;
}

/** A failure the user can act on: printed as `svc: <message>`, exit status 1. */
export class CliError extends Error {}

const silentLog = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  trace() {},
  fatal() {},
  child() {
    return silentLog;
  },
  level: 'silent',
  silent() {},
} as unknown as Context['log'];

/**
 * Runs `fn` on the database, which it closes before returning, so the write is on disk when the command
 * exits 0. On the embedded database held by a running server, refuses with the way out (`fix`).
 */
export async function withDatabase<T>(
  name: string,
  fix: string,
  fn: (ctx: Context) => Promise<T>,
): Promise<T> {
  const config = loadConfig(undefined, { workers: false });
  const { openDatabase } = await import('../db/database.ts');
  let database;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      role: `svc ${name}`,
    });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      throw new CliError(
        `the embedded database in ${err.dataDir} is open in ${err.owner.role} (pid ${err.owner.pid}), and only one process may open it, so nothing was written. ${fix}`,
      );
    }
    throw err;
  }
  try {
    const { Metrics } = await import('../lib/metrics.ts');
    const metrics = new Metrics({ defaultMetrics: false });
    // A command reads what it just wrote, or reads once: the primary, never a replica.
    const { primaryReads } = await import('../db/replicas.ts');
    return await fn({
      config,
      db: database.db,
      reads: primaryReads(database.db),
      bus: database.bus,
      log: silentLog,
      metrics,
      clock: systemClock,
      lifecycle: { draining: false },
    });
  } finally {
    await database.close();
  }
}

export function printResult(values: Values, result: unknown): void {
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
}
