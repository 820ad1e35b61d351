// Issue 43: a module a newcomer can hold is at most 2,500 lines. `npm run check` runs this and fails, naming each
// module over the limit and its size, when one grows past it: the next cut is then made on purpose, along a
// seam (docs/decisions/0135-rooms-a-newcomer-can-read.md), rather than found later at twice the size. A module
// is a directory under src/modules; its size is the lines of every .ts file in it, subdirectories included
// (what `cat src/modules/<name>/*.ts | wc -l` counts, for a module without subdirectories).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MODULE_LINES = 2500;

/** The lines of every .ts file under `dir`, counted as `wc -l` does (newlines). */
function linesUnder(dir: string): number {
  let lines = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) lines += linesUnder(path);
    else if (entry.name.endsWith('.ts')) lines += readFileSync(path, 'utf8').split('\n').length - 1;
  }
  return lines;
}

/** Each module under `modulesDir` (a directory of module directories) with its size, largest first. */
export function moduleSizes(modulesDir: string): { module: string; lines: number }[] {
  return readdirSync(modulesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ module: e.name, lines: linesUnder(join(modulesDir, e.name)) }))
    .sort((a, b) => b.lines - a.lines);
}

/** One line per module over `limit`: what the check prints before it fails. */
export function oversized(modulesDir: string, limit = MODULE_LINES): string[] {
  return moduleSizes(modulesDir)
    .filter((m) => m.lines > limit)
    .map(
      (m) => `src/modules/${m.module} is ${m.lines} lines, over the ${limit} a module may hold (issue 43)`,
    );
}

if (import.meta.main) {
  const over = oversized(join(import.meta.dirname, '../src/modules'));
  if (over.length > 0) {
    process.stderr.write(`${over.join('\n')}: cut it along a seam into a room of its own.\n`);
    process.exit(1);
  }
}
