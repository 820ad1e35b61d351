// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory, start it on a
// free loopback port, and remove it all on stop. As root (CI, this machine), the server runs as `postgres`.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cluster {
  /** `postgres://postgres@127.0.0.1:PORT/` without a database name. */
  baseUrl: string;
  url(database: string): string;
  /** The same database over the server's Unix socket (`?host=<socket directory>`), as on Debian. */
  socketUrl(database: string): string;
  /**
   * Stops the server as an operator's restart does (fast: sessions are terminated with 57P01), waits
   * `downMs`, and starts it again on the same port. Asynchronous, so that a test keeps driving load while
   * the database is away. Resolves once the server accepts connections again.
   */
  restart(downMs?: number): Promise<void>;
  /** Stops the server as `restart` does, until `up()`: for a test that looks at the service while it is down. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): void;
}

export function binDir(): string {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = [
    fromConfig.status === 0 ? fromConfig.stdout.trim() : '',
    ...(existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ];
  const dir = candidates.find((d) => d && existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!dir) throw new Error('PostgreSQL server binaries not found (install postgresql, or run .ci/run)');
  return dir;
}

export async function startCluster(
  options: { settings?: Record<string, string | number> } = {},
): Promise<Cluster> {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    const result = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
      : spawnSync(full, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`);
  };
  const runAsync = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const full = join(bin, cmd);
      const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
      execFile(file, argv, (err, stdout, stderr) =>
        err ? reject(new Error(`${cmd} failed: ${stderr || stdout}`)) : resolve(),
      );
    });
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const settings: Record<string, string | number> = {
    port,
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dir}'`,
    // A throwaway cluster: durability buys nothing here and fsync would dominate the test run.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: 300,
    shared_buffers: "'256MB'",
    ...options.settings,
  };
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n'),
  );
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', 'start']);
  const baseUrl = `postgres://postgres@127.0.0.1:${port}/`;
  const down = () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  const up = () => runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', 'start']);
  let stopped = false;
  return {
    baseUrl,
    url: (database) => `${baseUrl}${database}`,
    socketUrl: (database) => `postgres://postgres@/${database}?host=${encodeURIComponent(dir)}&port=${port}`,
    async restart(downMs = 0) {
      await down();
      // eslint-disable-next-line no-restricted-syntax -- the outage's length: the database stays down this long
      await new Promise((r) => setTimeout(r, downMs));
      await up();
    },
    down,
    up,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
