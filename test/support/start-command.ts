// What `npm start` runs after `node` (its flags and the entry), read from package.json: the bench and the
// start test run the service exactly as the README's first command does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  scripts: { start: string };
};

export const START_ARGS: readonly string[] = pkg.scripts.start.split(' ').slice(1);
