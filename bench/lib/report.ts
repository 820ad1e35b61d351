// The result table (stdout) and its JSON twin (bench/results/, git-ignored), with the host, the date and the
// commit it ran on: docs/performance.md is generated from that JSON (bench/tools/performance-doc.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Row, Target } from './bench.ts';
import { MIN_ROUNDS } from './verdict.ts';

export interface Host {
  hostname: string;
  nproc: number;
  cpu: string;
  memory_gb: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started and when it ended: how busy the neighbours were. */
  load: { start: number; end?: number };
}

export function host(): Host {
  return {
    hostname: hostname(),
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    load: { start: loadavg()[0]! },
  };
}

/** The commit checked out, `+dirty` when the work tree differs from it (what ran is then not that commit). */
export function commit(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain') ? '+dirty' : '');
  } catch {
    return 'unknown';
  }
}

/** Three significant figures: CPU per request is 0.0213 ms, a rate 39,786/s. */
export function num(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  if (x === 0) return '0';
  return String(Number(x.toPrecision(3)));
}

export function targetText(t: Target | undefined, unit: string): string {
  if (!t) return '-';
  return t.of === 'ratio' ? `ratio ${t.op} ${t.limit}` : `${t.op} ${t.limit} ${unit}`;
}

const span = (xs: readonly number[]) => (xs.length ? `${num(Math.min(...xs))}-${num(Math.max(...xs))}` : '-');

/** The cells of a row: name, median, min-max of the rounds, baseline, ratio (min-max), target, verdict. */
export function cells(r: Row): string[] {
  return [
    r.name,
    r.value === null ? 'n/a' : `${num(r.value)} ${r.unit}`,
    span(r.rounds),
    r.baseline === null ? '-' : `${num(r.baseline)} ${r.unit}`,
    r.ratio === null ? '-' : `${num(r.ratio)} (${span(r.ratioRounds)})`,
    targetText(r.target, r.unit),
    `${r.verdict}${r.rounds.length && r.rounds.length < MIN_ROUNDS ? ` (${r.rounds.length} rounds)` : ''}`,
  ];
}

export const HEADER = ['row', 'median', 'rounds min-max', 'baseline', 'ratio (min-max)', 'target', 'verdict'];

export function table(rows: readonly Row[]): string {
  const lines = rows.map(cells);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join(' | ');
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.name}: ${r.note}`);
  return [
    fmt(HEADER),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...lines.map(fmt),
    ...(notes.length ? ['', 'notes (baselines: see --help):', ...notes] : []),
  ].join('\n');
}

export interface RunRecord {
  at: string;
  host: Host;
  commit: string;
  /** A run of every measure with the default rounds: the runs docs/performance.md is made from. */
  full: boolean;
  options: Record<string, unknown>;
  seconds: number;
  rows: (Row & { measure: string })[];
  [extra: string]: unknown;
}

export function writeResults(run: RunRecord): string {
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = run.at.replace(/[:.]/g, '-');
  const doc = JSON.stringify(run, null, 2);
  writeFileSync(`${dir}${stamp}.json`, doc);
  writeFileSync(`${dir}latest.json`, doc);
  return `${dir}${stamp}.json`;
}
