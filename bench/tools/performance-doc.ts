// `node bench/tools/performance-doc.ts [RUN.json]`: writes docs/performance.md from the latest full run in
// bench/results/ (or the run given): the host, date and commit, one table of every row with its figure,
// spread and verdict, and for each row that is short or undecided what bounds it, from bench/bounds.ts. The
// document is generated, never edited: a hand-written line would not survive the next run, so what needs
// saying goes into the template below or into bench/bounds.ts. Earlier passes: docs/performance-history.md.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { BOUNDS } from '../bounds.ts';
import type { Row } from '../lib/bench.ts';
import { cells, num, targetText, type RunRecord } from '../lib/report.ts';
import { markdownCurve, type CurveResult } from '../scale/curve.ts';

const results = fileURLToPath(new URL('../results/', import.meta.url));
const out = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));

/** The runs in bench/results/, newest first. */
const runs = () =>
  readdirSync(results)
    .filter((f) => /^\d{4}-.*\.json$/.test(f))
    .sort()
    .reverse()
    .map((f) => ({
      file: results + f,
      run: JSON.parse(readFileSync(results + f, 'utf8')) as Partial<RunRecord>,
    }));

/** The newest run in bench/results/ that ran every measure with the default rounds. */
function latestFull(): string {
  for (const { file, run } of runs()) if (run.full === true) return file;
  throw new Error(
    `no full run in ${results}: run \`npm run bench\` (no --only, --quick, --rounds or --duration)`,
  );
}

const cell = (s: string) => s.replaceAll('|', '\\|');
/** A row's name in Markdown text: `webhook.*` would open an emphasis. */
const named = (r: Row) => `**${r.name.replaceAll('*', '\\*')}**`;

function tableOf(rows: readonly Row[]): string[] {
  const header = ['Row', 'Median', 'Rounds (min-max)', 'Baseline', 'Ratio (min-max)', 'Target', 'Verdict'];
  const lines = rows.map((r) => {
    const c = cells(r);
    if (r.versus && r.baseline !== null) c[3] = `${c[3]}, ${r.versus}`;
    c[6] = r.verdict === 'short' || r.verdict === 'undecided' ? `**${c[6]}**` : c[6]!;
    return `| ${c.map(cell).join(' | ')} |`;
  });
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines];
}

/** "ratio 2.44-3.40 against ratio <= 1.33": what the verdict was taken on. */
function judged(r: Row): string {
  const s = r.spread;
  const what = r.target?.of === 'ratio' ? 'ratio' : r.unit;
  const range = s ? `${num(s.min)}-${num(s.max)}` : '-';
  return `${r.verdict}: ${r.target?.of === 'ratio' ? `ratio ${range}` : `${range} ${what}`} against ${targetText(r.target, r.unit)}`;
}

function bounds(rows: readonly Row[]): string[] {
  const open = rows.filter((r) => r.verdict === 'short' || r.verdict === 'undecided');
  if (!open.length) return ['Every row with a target met it in every round.'];
  return open.map((r) => {
    const why = BOUNDS[r.name] ?? 'Nothing recorded yet: add a line for this row to bench/bounds.ts.';
    return `- ${named(r)} (${judged(r)}). ${why}${r.note ? ` This run: ${r.note}.` : ''}`;
  });
}

/**
 * Rows the full run has not (a measure added since), each from the newest later run that measured it
 * (`--only`), with that run's date, rounds and load: shown apart, until the next full run takes them in.
 */
function sinceFull(run: RunRecord): string[] {
  const have = new Set(run.rows.map((r) => r.name));
  const taken: { row: Row; from: Partial<RunRecord> }[] = [];
  for (const { run: later } of runs()) {
    if (!later.at || later.at <= run.at) break;
    for (const row of later.rows ?? []) {
      if (have.has(row.name)) continue;
      have.add(row.name);
      taken.push({ row, from: later });
    }
  }
  if (!taken.length) return [];
  const runsOf = [...new Set(taken.map((t) => t.from))].map((r) => {
    const o = r.options as { rounds: number; only?: string[] };
    return (
      `${r.at!.slice(0, 16).replace('T', ' ')} UTC on ${r.commit}, \`--only ${(o.only ?? []).join(',')}\`, ` +
      `${o.rounds} rounds, load average ${r.host!.load.start.toFixed(1)} at the start and ` +
      `${r.host!.load.end?.toFixed(1) ?? '-'} at the end`
    );
  });
  return [
    '## Rows measured since the full run',
    '',
    `Measures added after the run above, from ${runsOf.join('; ')}. The next full run takes them in.`,
    '',
    ...tableOf(taken.map((t) => t.row)),
    '',
  ];
}

type ScaleRecord = Partial<RunRecord> & { scale?: { curves: CurveResult[] } };

/** Each curve of `npm run bench -- --scale` from the newest scale run that measured it, with that run's host. */
function scaleCurves(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { run } of runs() as { run: ScaleRecord }[]) {
    for (const c of run.scale?.curves ?? []) {
      if (seen.has(c.name) || !c.points.length) continue;
      seen.add(c.name);
      const h = run.host!;
      out.push(
        `${markdownCurve(c)}\n\n${run.at!.slice(0, 16).replace('T', ' ')} UTC on ${run.commit}, ${h.nproc} vCPUs ` +
          `(${h.cpu}), load average ${h.load.start.toFixed(1)} at the start.${c.note ? ` ${c.note}.` : ''}`,
      );
    }
  }
  if (!out.length) return [];
  return [
    '## Scale curves',
    '',
    'How a figure grows with the size of what it depends on (`npm run bench -- --scale`), each curve from the',
    'newest run that measured it.',
    '',
    out.join('\n\n'),
    '',
  ];
}

function document(run: RunRecord, file: string): string {
  const h = run.host;
  const count = (v: Row['verdict']) => run.rows.filter((r) => r.verdict === v).length;
  const missing = run.rows.filter((r) => r.verdict === 'n/a');
  const o = run.options as { rounds: number; duration: number };
  return [
    '# Performance',
    '',
    `<!-- Generated by \`node bench/tools/performance-doc.ts\` from bench/results/${file.split('/').at(-1)} and`,
    'bench/bounds.ts. Do not edit: run the bench, change bench/bounds.ts or the template, and generate. -->',
    '',
    "The service's hot paths, each measured by `npm run bench` against a baseline run in the same rounds on the",
    "same machine. Every row's figure is the median of its rounds; where it is a cost, it is CPU per operation:",
    "user and system time from /proc of the service's Node process and of every PostgreSQL process (the",
    "baseline's own processes for the baseline). Neighbours on a shared host move it, but they move both sides",
    'of a round alike, where requests per second swing 2x. Latency and memory rows keep their unit. Service',
    'and baseline alternate',
    '(service, baseline, service, baseline, ...), and a row is **met** only when every round is on the good side',
    'of its target, **short** only when every round is on the bad side, and **undecided** when the rounds',
    'straddle it: measure again on a quieter machine. A throughput target of the issues ("at least 0.75 of the',
    'bare server") is read as cost (at most 1/0.75 = 1.33x its CPU per request); `npm run bench -- --help` lists',
    'every row with what it measures, its baseline and its target. The passes before the bench gave verdicts,',
    'with what was tried and measured, are in [performance-history.md](performance-history.md); the passes',
    'named under the table are its sections.',
    '',
    '```sh',
    `npm run bench                    # every row: ${Math.round(run.seconds / 60)} minutes in the run below (the aim: 12)`,
    'npm run bench -- --quick         # the rows a change most often moves, about 3 minutes',
    'npm run bench -- --only token    # some measures; --help lists them and their rows',
    'node bench/tools/performance-doc.ts   # this page, from the latest full run',
    '```',
    '',
    run.full ? '## Latest full run' : '## Latest run (not a full run: regenerate after `npm run bench`)',
    '',
    `${run.full ? '' : `Options ${JSON.stringify(run.options)}. `}${run.at.slice(0, 16).replace('T', ' ')} UTC on ${run.commit}, ${o.rounds} rounds, ${o.duration} s of load per ` +
      `side and round, ${Math.round(run.seconds / 60)} minutes (${run.seconds} s) in all; host ${h.hostname}: ` +
      `${h.nproc} vCPUs (${h.cpu}), ${h.memory_gb} GB, Node ${h.node}, PostgreSQL 15, ${h.platform}; load average ` +
      `${h.load.start.toFixed(1)} at the start and ${h.load.end?.toFixed(1) ?? '-'} at the end. ` +
      `${count('met')} met, ${count('short')} short, ${count('undecided')} undecided, ${count('info')} for ` +
      `information${missing.length ? `, ${missing.length} without a figure` : ''}.`,
    '',
    ...tableOf(run.rows),
    '',
    '## What bounds the rows that are short or undecided',
    '',
    ...bounds(run.rows),
    ...(missing.length
      ? ['', '## Rows without a figure', '', ...missing.map((r) => `- ${named(r)}: ${r.note ?? 'no figure'}`)]
      : []),
    '',
    ...sinceFull(run),
    ...scaleCurves(),
  ].join('\n');
}

const file = process.argv[2] ?? latestFull();
const run = JSON.parse(readFileSync(file, 'utf8')) as RunRecord;
const text = await format(document(run, file), { ...(await resolveConfig(out)), filepath: out });
writeFileSync(out, text);
process.stdout.write(`${out}: ${text.split('\n').length} lines, from ${file}\n`);
