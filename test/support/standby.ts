// A hot standby of a test's own cluster (test/support/postgres.ts), streaming from it: `pg_basebackup -R` into a
// second data directory with its own port and socket directory, stopped as a crash would stop it.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';
import { binDir, type Cluster } from './postgres.ts';

const ROOT = process.getuid?.() === 0;

/** A PostgreSQL program, as the `postgres` user when the test runs as root (the cluster's owner). */
function pgRun(cmd: string, args: string[]): void {
  const full = join(binDir(), cmd);
  const result = ROOT
    ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
    : spawnSync(full, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`);
}

export interface Standby {
  url: string;
  port: number;
  /** Runs one statement on the standby's copy of `database`, as the superuser. */
  query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
  stop(): void;
  remove(): void;
}

/** A hot standby of `primary` streaming from it: base backup with -R, its own port and socket directory. */
export async function startStandby(primary: Cluster, database = 'svc'): Promise<Standby> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-'));
  if (ROOT) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  pgRun('pg_basebackup', ['-R', '-c', 'fast', '-X', 'stream', '-D', data, '-d', primary.url('postgres')]);
  const port = await freePort();
  // The copied settings name the primary's port and socket directory: later lines win. The test cluster's
  // file ends without a newline, which -R's primary_conninfo line was appended to: put one between.
  const conf = join(data, 'postgresql.auto.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8').replace(/([^\n])primary_conninfo/, '$1\nprimary_conninfo'));
  appendFileSync(conf, `\nport = ${port}\nunix_socket_directories = '${dir}'\n`);
  try {
    pgRun('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', 'start']);
  } catch (err) {
    const log = readFileSync(join(dir, 'log'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\n${log}`, { cause: err });
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  };
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    url: url(database),
    port,
    async query(text, params) {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query(text, params)).rows;
      } finally {
        await client.end();
      }
    },
    stop,
    remove() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
