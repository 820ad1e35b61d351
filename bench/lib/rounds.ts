// Service and baseline alternate, ROUNDS times each, and each keeps its best round: on a shared machine noise
// only ever slows a run down, and alternating spreads a slow spell over both sides instead of one.
import type { LoadResult } from '../drivers/load.ts';

export const ROUNDS = 2;

export async function bestOfAlternating(
  service: () => Promise<LoadResult>,
  baseline: () => Promise<LoadResult>,
): Promise<{ svc: LoadResult; base: LoadResult }> {
  let svc: LoadResult | undefined;
  let base: LoadResult | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    const s = await service();
    if (!svc || s.rps > svc.rps) svc = s;
    const b = await baseline();
    if (!base || b.rps > base.rps) base = b;
  }
  return { svc: svc!, base: base! };
}
