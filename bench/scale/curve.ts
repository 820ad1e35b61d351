// `--scale`: how cost grows with size. Each curve measures one figure at a few sizes of what it depends on
// (entries, webhooks, keys, history) in the same run, and is judged by the ratio of its largest size's figure
// to its smallest's: a flat design stays within 2x over two or three orders of magnitude.
import type { Bench } from '../lib/bench.ts';

export interface Point {
  size: number;
  /** The figure the curve is judged by. */
  value: number;
  /** Other figures at this size, printed beside it. */
  detail: string;
}

export interface CurveResult {
  name: string;
  unit: string;
  /** What a size counts. */
  of: string;
  /** false where the work itself grows with the size (fan-out): the ratio is reported, not judged. */
  flat: boolean;
  /** Whether a larger value is worse (a time) or better (a rate). */
  lowerIsBetter: boolean;
  points: Point[];
  /** Sizes asked for but left out by --scale-max. */
  skipped: number[];
  note?: string;
}

export interface Curve {
  name: string;
  run(b: Bench, sizes: (wanted: readonly number[]) => number[]): Promise<CurveResult[]>;
}

/** Cost at the largest size over cost at the smallest (for a rate, the inverse), >= 1 when it got worse. */
export function growth(c: CurveResult): number {
  const first = c.points[0];
  const last = c.points[c.points.length - 1];
  if (!first || !last || c.points.length < 2) return NaN;
  return c.lowerIsBetter ? last.value / first.value : first.value / last.value;
}

const fmt = (x: number) =>
  Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(Math.abs(x) >= 10 ? 1 : 2);

export function printCurve(c: CurveResult): string {
  const g = growth(c);
  const verdict = Number.isNaN(g)
    ? 'n/a (one size)'
    : !c.flat
      ? `${g.toFixed(2)}x (the work grows with the size: not judged)`
      : g > 2
        ? `${g.toFixed(2)}x  ** NOT FLAT (> 2x) **`
        : `${g.toFixed(2)}x  flat (<= 2x)`;
  return [
    `${c.name} (${c.unit}) by ${c.of}:`,
    ...c.points.map(
      (p) =>
        `  ${p.size.toLocaleString('en-US').padStart(12)}  ${fmt(p.value).padStart(9)} ${c.unit}  ${p.detail}`,
    ),
    ...(c.skipped.length
      ? [`  not measured (--scale-max): ${c.skipped.map((s) => s.toLocaleString('en-US')).join(', ')}`]
      : []),
    `  largest/smallest: ${verdict}`,
    ...(c.note ? [`  ${c.note}`] : []),
  ].join('\n');
}

export function markdownCurve(c: CurveResult): string {
  const g = growth(c);
  return [
    `**${c.name}** (${c.unit}) by ${c.of}; largest/smallest ${Number.isNaN(g) ? 'n/a' : `${g.toFixed(2)}×`}${
      c.flat ? (g > 2 ? ' — **not flat**' : ' — flat') : ' (work grows)'
    }`,
    '',
    `| ${c.of} | ${c.unit} | detail |`,
    '|---:|---:|---|',
    ...c.points.map((p) => `| ${p.size.toLocaleString('en-US')} | ${fmt(p.value)} | ${p.detail} |`),
  ].join('\n');
}
