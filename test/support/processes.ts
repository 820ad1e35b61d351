// The service as separate operating-system processes (`node src/main.ts`), for the system tests: start on a
// free port, wait until ready, stop every child at the end (and whatever happens to the test worker).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_SIGNING_KEY, MASTER_KEY } from './service.ts';
import { eventually } from './eventually.ts';
import { freePort } from './ports.ts';

export { freePort };

const ROOT = join(import.meta.dirname, '..', '..');
export const INTERNAL_TOKEN = 'system-test-internal-token';
/**
 * Node's compile cache, in the folder `svc` commands use (bin/runtime.js): the suite starts the service well
 * over a hundred times, and each start would otherwise strip and compile every module again.
 */
const COMPILE_CACHE = join(tmpdir(), 'node-compile-cache');

export interface ServiceProcess {
  child: ChildProcess;
  /** Its listener: the API, or a worker's probes and metrics (SVC_METRICS_PORT, else PORT). */
  url: string;
  pid: number;
}

const children: ChildProcess[] = [];
// Even if the test worker itself is torn down before afterAll runs, no child outlives it.
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/**
 * Starts a service process on the database and waits until /readyz answers (60 s at most): on the API, or for
 * a worker (SVC_ROLE=worker) on its probe listener.
 */
export async function startProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: {
    stdout?: (text: string) => void;
    /** What to run instead of `src/main.ts` (`bin/svc.js start --role worker`). */
    args?: string[];
  } = {},
): Promise<ServiceProcess> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = spawn(process.execPath, options.args ?? ['src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      // No SVC_AUDIT_SIGNING_KEYS: the checkpoint keys are derived from the master key (API.md section 9).
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_LOG_LEVEL: 'silent',
      SVC_RATE_LIMIT: 'off',
      SVC_WEBHOOK_ALLOW_PRIVATE: '1',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...env,
    },
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  children.push(child);
  if (options.stdout) child.stdout!.on('data', (d: Buffer) => options.stdout!(d.toString()));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const worker = env.SVC_ROLE === 'worker' || options.args?.join(' ').includes('--role worker');
  const listening = worker ? Number(env.SVC_METRICS_PORT ?? port) : port;
  const url = `http://127.0.0.1:${listening}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`process exited early: ${stderr}`);
      return fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
    },
    { timeoutMs: 60_000, intervalMs: 100, what: () => `the process to be ready: ${stderr}` },
  );
  return { child, url, pid: child.pid! };
}

/** SIGKILLs every child still running (crash tests, and the end of a file). */
export function killAll(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** SIGTERMs every child still running and waits for it to exit (SIGKILL after 5 s). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** A JSON call to a service process: the status and the `data` of the envelope (undefined for none). */
export async function call<T = any>(
  base: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; data: T }> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, data: (text ? (JSON.parse(text) as { data: T }).data : undefined) as T };
}

/** Runs the `svc` command against a database URL, or an embedded data directory. */
export function runSvc(args: string[], target: { databaseUrl?: string | undefined; dataDir: string }) {
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
  };
  if (target.databaseUrl) env.DATABASE_URL = target.databaseUrl;
  else env.SVC_DATA_DIR = target.dataDir;
  return spawnSync(process.execPath, ['bin/svc.js', ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 90_000,
  });
}
