// The service under test, started as `npm start` starts it, in its own process (as in production), with its peak
// resident memory tracked from /proc for the whole run.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sleep } from './stats.ts';
import { START_ARGS, START_ENV } from '../../test/support/start-command.ts';

export interface RunningService {
  url: string;
  pid: number;
  internalToken: string;
  /** Peak resident set in MB: the larger of the polled VmRSS and the kernel's VmHWM. */
  peakRssMb(): number;
  /** Peak polled VmRSS in MB since the last call (per measure, to tell which one drives the peak). */
  windowPeakRssMb(): number;
  /** VmRSS now, in MB. */
  rssMb(): number;
  /** The round the measures are in (`undefined` between rounds: set-up, seeding, warm-ups). */
  markRound(round: number | undefined): void;
  /**
   * Per round k, the peak polled VmRSS in MB over round k of every measure and everything done once
   * (set-ups and warm-ups serve every round): the run's peak, sampled once per round.
   */
  roundPeaksMb(): number[];
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // not Linux, or the process is gone
  }
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** Write a V8 CPU profile of the whole run into this directory (`--profile`). */
  profileDir?: string | undefined;
  /** Listen on this port (a restart after a crash keeps its address); a free one otherwise. */
  port?: number;
}

/** `databaseUrl` undefined: embedded mode, PGlite in a data directory (SVC_DATA_DIR in `options.env`). */
export async function startService(
  databaseUrl: string | undefined,
  options: ServiceOptions = {},
): Promise<RunningService> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const internalToken = options.env?.SVC_INTERNAL_TOKEN ?? randomBytes(24).toString('base64url');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const profile = options.profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, '--import', './bench/tools/memory-probe.ts']
    : [];
  const proc: ChildProcess = spawn(process.execPath, [...profile, ...START_ARGS], {
    cwd: root,
    env: {
      ...process.env,
      ...START_ENV,
      DATABASE_URL: databaseUrl ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_PUBLIC_URL: url,
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
      SVC_AUDIT_SIGNING_KEYS: randomBytes(32).toString('base64'),
      SVC_LOG_LEVEL: 'warn',
      SVC_RATE_LIMIT: 'off',
      SVC_WEBHOOK_ALLOW_PRIVATE: '1',
      SVC_INTERNAL_TOKEN: internalToken,
      // Codes are minted in bulk before the exchange measure: give them time to wait their turn.
      SVC_OAUTH_CODE_TTL: '600',
      ...(options.profileDir ? { BENCH_MEMORY_LOG: `${options.profileDir}memory.jsonl` } : {}),
      ...options.env,
    },
    // Its log (and an embedded first start's demo sign-in) to the bench's stderr: stdout is the result table.
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  const pid = proc.pid!;
  let exited = false;
  proc.once('exit', () => {
    exited = true;
  });

  for (let i = 0; ; i++) {
    if (exited) throw new Error('the service exited during start (see its output above)');
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    // A first embedded start makes its database in a child process: 5-10 s on a quiet host, more than 30 s
    // at load average 20. A process that never got ready is not left running (it would outlive the run).
    if (i > 1200) {
      proc.kill('SIGKILL');
      throw new Error('the service did not become ready in 120 s');
    }
    await sleep(100);
  }

  let peakKb = 0;
  let windowKb = 0;
  let round: number | undefined;
  let onceKb = 0;
  const roundKb: number[] = [];
  const poll = setInterval(() => {
    const rss = statusKb(pid, 'VmRSS');
    peakKb = Math.max(peakKb, rss);
    windowKb = Math.max(windowKb, rss);
    if (round === undefined) onceKb = Math.max(onceKb, rss);
    else roundKb[round] = Math.max(roundKb[round] ?? 0, rss);
  }, 200);
  poll.unref();

  return {
    url,
    pid,
    internalToken,
    peakRssMb: () => Math.max(peakKb, statusKb(pid, 'VmHWM')) / 1024,
    rssMb: () => statusKb(pid, 'VmRSS') / 1024,
    markRound(k) {
      round = k;
    },
    roundPeaksMb: () => Array.from(roundKb, (kb) => Math.max(kb ?? 0, onceKb) / 1024),
    windowPeakRssMb() {
      const mb = Math.max(windowKb, statusKb(pid, 'VmRSS')) / 1024;
      windowKb = 0;
      return mb;
    },
    async stop() {
      clearInterval(poll);
      if (exited) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        proc.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        proc.kill('SIGTERM');
      });
    },
  };
}

/**
 * A database of its own on the run's cluster (made afresh), and the settings every process of one fleet on it
 * must share: the master key that seals its secrets, the audit keys and the internal token.
 */
export async function fleetDatabase(
  cluster: { url(database: string): string },
  name: string,
): Promise<{ url: string; env: Record<string, string> }> {
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: cluster.url(name),
    env: {
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
      SVC_AUDIT_SIGNING_KEYS: randomBytes(32).toString('base64'),
      SVC_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    },
  };
}
