// The result table (stdout) and its JSON twin (bench/results/, git-ignored).
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { verdict, type Row, type Target } from './bench.ts';

export function machine() {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function num(x: number | null): string {
  if (x === null || Number.isNaN(x)) return '-';
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  return x.toFixed(Math.abs(x) >= 10 ? 1 : 2);
}

function target(t: Target | undefined, unit: string): string {
  if (!t) return '-';
  return t.of === 'ratio' ? `ratio ${t.op} ${t.limit}` : `${t.op} ${t.limit} ${unit}`;
}

export function table(rows: readonly Row[]): string {
  const header = ['measure', 'value', 'baseline', 'ratio', 'target', 'result'];
  const lines = rows.map((r) => [
    r.measure,
    r.value === null ? 'n/a' : `${num(r.value)} ${r.unit}`,
    r.baseline === null ? '-' : `${num(r.baseline)} ${r.unit}`,
    r.ratio === null ? '-' : r.ratio.toFixed(2),
    target(r.target, r.unit),
    verdict(r) === 'n/a' ? `n/a (${r.note ?? 'no value'})` : verdict(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (i === 5 ? 0 : l[i]!.length))));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 5 ? c : c.padEnd(widths[i]!))).join(' | ');
  const notes = rows.filter((r) => r.note && verdict(r) !== 'n/a').map((r) => `  ${r.measure}: ${r.note}`);
  return [
    fmt(header),
    widths.map((w, i) => '-'.repeat(i === 5 ? 6 : w)).join('-|-'),
    ...lines.map(fmt),
    ...(notes.length ? ['', 'notes:', ...notes] : []),
  ].join('\n');
}

/** Markdown of the same table, for docs/performance.md. */
export function markdown(rows: readonly Row[]): string {
  const out = ['| Measure | Value | Baseline | Ratio | Target | Result |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const v = verdict(r);
    out.push(
      `| ${r.measure} | ${r.value === null ? 'n/a' : `${num(r.value)} ${r.unit}`} | ${
        r.baseline === null ? '-' : `${num(r.baseline)} ${r.unit}`
      } | ${r.ratio === null ? '-' : r.ratio.toFixed(2)} | ${target(r.target, r.unit)} | ${
        v === 'n/a' ? `n/a (${r.note ?? ''})` : v
      } |`,
    );
  }
  const notes = rows.filter((r) => r.note && verdict(r) !== 'n/a').map((r) => `- ${r.measure}: ${r.note}`);
  return [...out, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

export function writeResults(rows: readonly Row[], extra: Record<string, unknown>): string {
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const doc = JSON.stringify(
    {
      ...extra,
      machine: machine(),
      rows: rows.map((r) => ({ ...r, result: verdict(r) })),
      markdown: markdown(rows),
    },
    null,
    2,
  );
  writeFileSync(`${dir}${stamp}.json`, doc);
  writeFileSync(`${dir}latest.json`, doc);
  return `${dir}${stamp}.json`;
}
