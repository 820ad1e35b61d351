// The runtime check of the commands in bin/, before any TypeScript source is loaded. They run on the project's
// pinned Node 24 (the `node` devDependency; npm puts it first on the PATH of `npm start`, `npm run` and
// `npx svc`), which runs the TypeScript sources directly. A machine's own older Node, reached by calling
// `node bin/...` directly, fails on the first import with an error that names neither cause nor remedy
// (`ERR_UNKNOWN_FILE_EXTENSION`, a missing `enableCompileCache`): this says both. Plain JavaScript, and only
// what Node 18 and 20 have, so that it runs where the check fails.
import module from 'node:module';
import { existsSync } from 'node:fs';
import process from 'node:process';

const PINNED = new URL('../node_modules/.bin/node', import.meta.url);

/** Exits with status 1 and the way out unless this Node runs TypeScript; then turns on the compile cache. */
export function requireRuntime(command) {
  if (!process.features.typescript || typeof module.enableCompileCache !== 'function') {
    const missing = existsSync(PINNED)
      ? ''
      : ' It is missing: npm did not run the install script of the `node` package, which fetches it (npm 11 ' +
        'skips the install scripts that allowScripts in package.json does not approve: `npm install-scripts ls`), ' +
        'or `npm ci` has not run.';
    process.stderr.write(
      `${command}: this is Node ${process.versions.node} (${process.execPath}), which cannot run the ` +
        "TypeScript sources. svc runs on the project's pinned Node 24, node_modules/.bin/node: start it " +
        `through npm (npm start, npx svc ...), which puts it first, or call node_modules/.bin/node.${missing}\n`,
    );
    process.exit(1);
  }
  // Node's compile cache spares a repeated start the type stripping and compiling; where its folder
  // cannot be written, the command runs without it.
  module.enableCompileCache();
}
