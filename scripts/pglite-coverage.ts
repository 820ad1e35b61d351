// The rule of vitest.config.ts, checked: every statement of a repository (src/**/*.repository.ts) that the
// suite runs on PostgreSQL also runs on PGlite. Runs the `pg` project, then the `pglite` and `e2e` projects
// (the browser tests' services are on PGlite too), with V8 coverage of the repositories (two runs of the
// suite: minutes), then lists each statement run on PostgreSQL only, and exits 1 if there is one.
// `--compare` compares the reports of an earlier run without running the tests again.
//
//   node scripts/pglite-coverage.ts
import { spawnSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
/** Each side of the comparison, and the Vitest projects that run it. */
const SIDES = { pg: ['pg'], pglite: ['pglite', 'e2e'] } as const;
type Side = keyof typeof SIDES;

/** A file of istanbul's coverage-final.json: each statement's place, and how often it ran. */
interface FileCoverage {
  statementMap: Record<string, { start: { line: number; column: number } }>;
  s: Record<string, number>;
}

const reportDir = (side: Side) => join(ROOT, 'test-results', `coverage-${side}`);

function runSide(side: Side): void {
  // test/system's services are other processes, which the coverage of the test's own process does not see
  const files = globSync('test/**/*.test.ts', { cwd: ROOT }).filter((f) => !f.startsWith('test/system/'));
  const result = spawnSync(
    join(ROOT, 'node_modules/.bin/vitest'),
    [
      'run',
      ...SIDES[side].flatMap((project) => ['--project', project]),
      ...files,
      '--coverage.enabled',
      '--coverage.provider=v8',
      '--coverage.include=src/**/*.repository.ts',
      '--coverage.reporter=json',
      `--coverage.reportsDirectory=${reportDir(side)}`,
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  // a failing test fails the check too: its statements may not have run
  if (result.status !== 0) throw new Error(`the ${side} side failed (exit ${result.status})`);
}

/** Per repository file, the places of the statements that ran at least once. */
function ranStatements(side: Side): Map<string, { all: Set<string>; ran: Set<string> }> {
  const report = JSON.parse(readFileSync(join(reportDir(side), 'coverage-final.json'), 'utf8')) as Record<
    string,
    FileCoverage
  >;
  const out = new Map<string, { all: Set<string>; ran: Set<string> }>();
  for (const [file, coverage] of Object.entries(report)) {
    const all = new Set<string>();
    const ran = new Set<string>();
    for (const [id, at] of Object.entries(coverage.statementMap)) {
      const place = `${at.start.line}:${at.start.column}`;
      all.add(place);
      if ((coverage.s[id] ?? 0) > 0) ran.add(place);
    }
    out.set(relative(ROOT, file), { all, ran });
  }
  return out;
}

const { values } = parseArgs({ options: { compare: { type: 'boolean', default: false } } });
if (!values.compare) for (const side of Object.keys(SIDES) as Side[]) runSide(side);

const pg = ranStatements('pg');
const pglite = ranStatements('pglite');
const totals = { statements: 0, pg: 0, pglite: 0, either: 0 };
const missing: string[] = [];
for (const [file, onPg] of [...pg].sort(([a], [b]) => a.localeCompare(b))) {
  const onPglite = pglite.get(file)?.ran ?? new Set<string>();
  const either = new Set([...onPg.ran, ...onPglite]);
  totals.statements += onPg.all.size;
  totals.pg += onPg.ran.size;
  totals.pglite += onPglite.size;
  totals.either += either.size;
  const pgOnly = [...onPg.ran].filter((place) => !onPglite.has(place));
  for (const place of pgOnly) missing.push(`${file}:${place}`);
  console.log(
    `${file}: ${onPg.all.size} statements, ${onPg.ran.size} run on pg, ${onPglite.size} on pglite` +
      (pgOnly.length ? `, ${pgOnly.length} on pg only` : ''),
  );
}
console.log(
  `repositories: ${totals.statements} statements; run on pg ${totals.pg}, on pglite ${totals.pglite}, ` +
    `by either ${totals.either}, never ${totals.statements - totals.either}`,
);
if (missing.length) {
  console.log(
    `run on PostgreSQL only (add a test file that runs them to the PGlite list of vitest.config.ts):`,
  );
  for (const m of missing) console.log(`  ${m}`);
  process.exitCode = 1;
}
