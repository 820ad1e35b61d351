// `npm run bench -- --scale [--scale-max N]`: the curves, each size capped at N (sizes above it are listed as
// not measured), printed after the run and written to bench/results/ with the point table.
import type { Bench } from '../lib/bench.ts';
import { appInstallsCurve } from './app-installs-curve.ts';
import { attemptsCurve } from './attempts-curve.ts';
import { auditCurve } from './audit-curve.ts';
import { type Curve, type CurveResult, markdownCurve, printCurve } from './curve.ts';
import { fanoutCurve } from './fanout-curve.ts';
import { historyCurve } from './history-curve.ts';
import { publicReadCurve } from './public-read-curve.ts';

export const CURVES: readonly Curve[] = [
  publicReadCurve,
  fanoutCurve,
  appInstallsCurve,
  historyCurve,
  attemptsCurve,
  auditCurve,
];

export async function runScale(
  b: Bench,
  max: number,
  only: readonly string[] | undefined,
): Promise<{ text: string; markdown: string; curves: CurveResult[] }> {
  const curves: CurveResult[] = [];
  for (const curve of CURVES.filter((c) => !only || only.includes(c.name))) {
    const t0 = Date.now();
    try {
      curves.push(...(await curve.run(b, (wanted) => wanted.filter((s) => s <= max))));
    } catch (err) {
      b.log(`scale ${curve.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    b.log(`scale ${curve.name} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  return {
    text: curves.map(printCurve).join('\n\n'),
    markdown: curves.map(markdownCurve).join('\n\n'),
    curves,
  };
}
