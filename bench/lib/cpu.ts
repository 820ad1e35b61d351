// CPU time spent by the processes of each side, from /proc. Throughput on a shared machine depends on what
// else runs; CPU milliseconds per operation barely do, so they tell the intrinsic cost of each side even
// when the wall-clock figures are swamped by neighbours.
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of one process (and, with `reaped`, of its children already waited for), in ms. */
export function processCpuMs(pid: number, reaped = false): number {
  const f = stat(pid);
  if (!f) return 0;
  const own = Number(f[11]) + Number(f[12]);
  return (own + (reaped ? Number(f[13]) + Number(f[14]) : 0)) * TICK_MS;
}

/** The PostgreSQL cluster: the postmaster, its live children, and the children that already exited. */
export async function postgresCpu(url: string): Promise<() => number> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const { rows } = await db.query<{ setting: string }>(
    `select setting from pg_settings where name = 'data_directory'`,
  );
  await db.end();
  const postmaster = Number(readFileSync(`${rows[0]!.setting}/postmaster.pid`, 'utf8').split('\n')[0]);
  return () => {
    let total = processCpuMs(postmaster, true);
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!pid) continue;
      const f = stat(pid);
      if (f && Number(f[1]) === postmaster) total += processCpuMs(pid);
    }
    return total;
  };
}

/** Runs `fn` and returns its result with the CPU ms `meter` counted meanwhile. */
export async function metered<T>(
  meter: () => number,
  fn: () => Promise<T>,
): Promise<{ result: T; cpuMs: number }> {
  const before = meter();
  const result = await fn();
  return { result, cpuMs: meter() - before };
}

/** CPU ms of a redis-server as it reports it (user and system, main thread and background threads, in us). */
export function redisCpu(url: string): { ms(): Promise<number>; close(): Promise<void> } {
  const client = new Redis(url, { lazyConnect: false });
  return {
    async ms() {
      const info = await client.info('cpu');
      const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
      return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
    },
    close: () => client.quit().then(() => undefined),
  };
}
