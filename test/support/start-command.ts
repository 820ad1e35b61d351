// What `npm start` runs, read from package.json: the variables it sets (`NAME=value` before `node`), then
// `node`'s flags and the entry. The bench and the start test run the service exactly as the README's first
// command does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  scripts: { start: string };
};

const words = pkg.scripts.start.split(' ');
const node = words.indexOf('node');

export const START_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  words.slice(0, node).map((word) => word.split('=', 2) as [string, string]),
);
export const START_ARGS: readonly string[] = words.slice(node + 1);
