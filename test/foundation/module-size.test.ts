// The module-size check of `npm run check` (scripts/module-size.ts, issue 43): it names a module over the limit
// with its size, counts the files of its subdirectories too, and finds none over it in src/modules today.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { MODULE_LINES, moduleSizes, oversized } from '../../scripts/module-size.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-module-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (n: number) => 'x;\n'.repeat(n);

it('names a module over the limit and its size, its subdirectories counted', () => {
  mkdirSync(join(dir, 'big/deep'), { recursive: true });
  writeFileSync(join(dir, 'big/a.ts'), lines(2000));
  writeFileSync(join(dir, 'big/deep/b.ts'), lines(501));
  writeFileSync(join(dir, 'big/notes.md'), lines(5000)); // not code
  mkdirSync(join(dir, 'small'));
  writeFileSync(join(dir, 'small/a.ts'), lines(MODULE_LINES));
  expect(moduleSizes(dir)).toEqual([
    { module: 'big', lines: 2501 },
    { module: 'small', lines: 2500 },
  ]);
  expect(oversized(dir)).toEqual([
    'src/modules/big is 2501 lines, over the 2500 a module may hold (issue 43)',
  ]);
});

it('finds no module of src/modules over the limit', () => {
  expect(oversized(join(import.meta.dirname, '../../src/modules'))).toEqual([]);
});
