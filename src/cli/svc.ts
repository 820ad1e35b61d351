// `svc merchant create --name N --email E --password P [--json]` (API.md section 2) and the subcommands the
// modules add. Runs against DATABASE_URL, or the embedded database while the server is stopped.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import type { Context } from '../context.ts';
import { AppError } from '../lib/errors.ts';
import { Metrics } from '../lib/metrics.ts';
import { COMMANDS } from './commands.ts';

export interface Command {
  /** e.g. "merchant create" */
  name: string;
  usage: string;
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
  run(ctx: Context, values: Record<string, string | boolean | undefined>): Promise<unknown>;
}

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

function usage(): string {
  return `usage:\n${COMMANDS.map((c) => `  svc ${c.name} ${c.usage}`).join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const command = COMMANDS.find((c) => argv.join(' ').startsWith(c.name + ' ') || argv.join(' ') === c.name);
  if (!command) {
    process.stderr.write(usage());
    return 2;
  }
  const rest = argv.slice(command.name.split(' ').length);
  const { values } = parseArgs({
    args: rest,
    options: { ...command.options, json: { type: 'boolean' } },
    strict: true,
  });
  const config = loadConfig(process.env, { workers: false });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const ctx = {
      config,
      db: database.db,
      bus: database.bus,
      log: silentLog,
      metrics: new Metrics({ defaultMetrics: false }),
    };
    const result = await command.run(ctx, values);
    process.stdout.write(
      values.json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message =
      err instanceof AppError
        ? `${err.code}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`svc: ${message}\n`);
    process.exit(1);
  },
);
