// A throwaway redis-server (Debian's package; .ci/run installs it) on a free loopback port, without
// persistence, for the tests of the shared rate limits: started by the test that needs it and stopped after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.ts';
import { Redis } from 'ioredis';
import { eventually } from './eventually.ts';

export interface RedisServer {
  url: string;
  /** Stops the server (a test may stop it mid-way to see the fallback). */
  stop(): Promise<void>;
  /** Freezes the server (SIGSTOP) with its connections open, until `resume` (SIGCONT): commands time out. */
  pause(): void;
  resume(): void;
}

export function haveRedis(): boolean {
  return spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
}

export async function startRedis(): Promise<RedisServer> {
  if (!haveRedis()) throw new Error('redis-server not found (apt-get install redis-server, or run .ci/run)');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const answers = async () => {
    if (child.exitCode !== null) throw new Error('redis-server exited');
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      return true;
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  try {
    await eventually(answers, { timeoutMs: 15_000, what: 'redis-server to answer' });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    url,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      })),
  };
}
