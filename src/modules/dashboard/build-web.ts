// Builds the dashboard (web/ -> web/dist) when the build is missing or older than its sources, so the
// README's `npm ci && npm start` serves it with no extra step (`npm run build`, which `prestart` runs), and the browser
// tests always drive the current sources. A fresh build is a file-time scan, about 10 ms; a build ~1.5 s.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));
export const DIST_DIR = join(WEB_DIR, 'dist');
// The audit catalogue is the service's own file, which the Logs filter imports (web/src/pages/logs/actions.ts).
const SOURCES = [
  'src',
  'public',
  'index.html',
  'vite.config.ts',
  'tsconfig.json',
  '../src/modules/audit/actions.ts',
];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export function isStale(): boolean {
  const built = join(DIST_DIR, 'index.html');
  if (!existsSync(built)) return true;
  const sources = Math.max(...SOURCES.map((s) => newest(join(WEB_DIR, s))));
  return sources > statSync(built).mtimeMs;
}

export async function buildIfStale(): Promise<'fresh' | 'built'> {
  if (!isStale()) return 'fresh';
  // In a child process with NODE_ENV=production: a test runner sets NODE_ENV=test, which would give
  // React's development build (twice the size, double effects). Vite is a devDependency, loaded only then.
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  await run(process.execPath, [vite, 'build', '--config', join(WEB_DIR, 'vite.config.ts')], {
    // eslint-disable-next-line no-restricted-properties -- passed on whole to the build, not read: a child's env replaces its parent's
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return 'built';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildIfStale().then(
    (outcome) => {
      if (outcome === 'built') process.stdout.write('dashboard built into web/dist\n');
    },
    (err: unknown) => {
      // The API works without the dashboard: say why it is missing, and start anyway.
      process.stderr.write(`dashboard build failed: ${err instanceof Error ? err.message : String(err)}\n`);
    },
  );
}
