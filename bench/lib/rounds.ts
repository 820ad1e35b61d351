// Service and baseline alternate, ROUNDS times each, and each keeps its best round: on a shared machine noise
// only ever slows a run down, and alternating spreads a slow spell over both sides instead of one.
import type { LoadResult } from '../drivers/load.ts';
import type { Bench } from './bench.ts';
import { metered, processCpuMs } from './cpu.ts';

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

/** "Node 0.20 ms + PostgreSQL 0.30 ms per request". */
export function cpuSplit(r: LoadResult): string {
  if (r.cpuPerOp === undefined || r.dbCpuPerOp === undefined) return '';
  return `Node ${(r.cpuPerOp - r.dbCpuPerOp).toFixed(2)} ms + PostgreSQL ${r.dbCpuPerOp.toFixed(2)} ms`;
}

export const childMeter = (pid: number) => () => processCpuMs(pid);
export type { Bench };

export const ROUNDS = 2;

export async function bestOfAlternating(
  service: () => Promise<LoadResult>,
  baseline: () => Promise<LoadResult>,
): Promise<{ svc: LoadResult; base: LoadResult }> {
  const best = await bestOfEach({ svc: service, base: baseline });
  return { svc: best.svc, base: best.base };
}

/** The same with any number of sides, run in turn within each round. */
export async function bestOfEach<K extends string>(
  sides: Record<K, () => Promise<LoadResult>>,
): Promise<Record<K, LoadResult>> {
  const best = {} as Record<K, LoadResult>;
  for (let i = 0; i < ROUNDS; i++) {
    for (const key of Object.keys(sides) as K[]) {
      const r = await sides[key]();
      if (!best[key] || r.rps > best[key].rps) best[key] = r;
    }
  }
  return best;
}
