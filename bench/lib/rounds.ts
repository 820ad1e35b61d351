// Rounds. Every row is measured `b.rounds` times, and where there is a baseline the two alternate
// (service, baseline, service, baseline, ...), so that a slow spell of the shared machine lands on both
// sides of one round rather than on one side of the comparison. Each round's figures are kept: the spread
// across rounds is what the verdict judges (lib/verdict.ts). The figure of a load round is the CPU ms per
// operation of the side (its processes' user + system time from /proc). Neighbours move it too (at load
// average 15 the bare server's CPU per request rose tenfold, its requests per second fell fortyfold), but
// they move both sides of a round alike, so the ratio of the two is what a verdict can stand on.
import type { LoadResult } from '../drivers/load.ts';
import type { Bench } from './bench.ts';
import { metered, processCpuMs } from './cpu.ts';
import { median } from './verdict.ts';

/** A load run with the CPU ms per request of the side `meter` counts. */
export async function meteredRun(
  meter: () => number,
  run: () => Promise<LoadResult>,
  /** The PostgreSQL part of `meter`, to tell where the time goes. */
  database?: () => number,
): Promise<LoadResult> {
  const db0 = database?.() ?? 0;
  const { result, cpuMs } = await metered(meter, run);
  const per = (ms: number) => (result.total ? ms / result.total : NaN);
  return {
    ...result,
    cpuPerOp: per(cpuMs),
    ...(database ? { dbCpuPerOp: per(database() - db0) } : {}),
  };
}

export const childMeter = (pid: number) => () => processCpuMs(pid);

/** Runs `each` once per round, telling the service which round it is in (its memory peak is kept per round). */
export async function inRounds<T>(b: Bench, each: (round: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for (let k = 0; k < b.rounds; k++) {
      b.service.markRound(k);
      out.push(await each(k));
    }
  } finally {
    b.service.markRound(undefined);
  }
  return out;
}

/** The sides run in turn within each round; each side's results in round order. */
export async function alternate<K extends string>(
  b: Bench,
  sides: Record<K, () => Promise<LoadResult>>,
): Promise<Record<K, LoadResult[]>> {
  const keys = Object.keys(sides) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as LoadResult[]])) as Record<K, LoadResult[]>;
  await inRounds(b, async () => {
    for (const key of keys) out[key].push(await sides[key]());
  });
  return out;
}

/** Each round's CPU ms per operation; a round with more than 1% errors has none. */
export const cpuOf = (rs: readonly LoadResult[]) =>
  rs.map((r) => (r.errors > r.total / 100 ? null : (r.cpuPerOp ?? null)));

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(x >= 10 ? 1 : 2));

/** "1,234 (1,100-1,300)": the median and range of some figure across rounds, for a note. */
export function range(xs: readonly number[]): string {
  const sorted = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return '-';
  return `${fmt(median(sorted)!)} (${fmt(sorted[0]!)}-${fmt(sorted.at(-1)!)})`;
}

/** "Node 0.20 + PostgreSQL 0.30 ms": the split of the median round's CPU per operation. */
export function cpuSplit(rs: readonly LoadResult[]): string {
  const node = rs.map((r) => (r.cpuPerOp ?? NaN) - (r.dbCpuPerOp ?? NaN));
  const db = rs.map((r) => r.dbCpuPerOp ?? NaN);
  if (!node.some(Number.isFinite)) return '';
  return `Node ${range(node)} + PostgreSQL ${range(db)} ms`;
}

/** "req/s 39,800 (38,000-41,000) against 70,700 (...)": throughput, for the note of a CPU row. */
export function rates(svc: readonly LoadResult[], base?: readonly LoadResult[]): string {
  const own = `req/s ${range(svc.map((r) => r.rps))}`;
  const errors = svc.reduce((n, r) => n + r.errors, 0);
  return (
    own + (base ? ` against ${range(base.map((r) => r.rps))}` : '') + (errors ? `; ${errors} errors` : '')
  );
}
