// `npm test`: the static checks (`npm run check`: types, dependency rules, lint, format, the generated client,
// event docs and OpenAPI document) and the tests (Vitest, given this script's arguments) at the same time.
// Run one after the other they took 92 s and then about 750 s; side by side, the checks, niced, take the
// cores when the tests leave them (docs/decisions/0230-checks-beside-tests-and-shared-schema-code.md). The
// checks' output is held and printed after the tests', so that neither is interleaved with the other; the
// command fails if either did.
import { spawn } from 'node:child_process';

function run(command: string, args: string[], held: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const started = performance.now();
const check = run('nice', ['-n', '10', 'npm', 'run', '--silent', 'check'], true).then((r) => ({
  ...r,
  seconds: Math.round((performance.now() - started) / 1000),
}));
const tests = await run('vitest', ['run', ...process.argv.slice(2)], false);
const checked = await check;
process.stdout.write(
  checked.code === 0
    ? `\nnpm run check passed (${checked.seconds} s, beside the tests)\n`
    : `\nnpm run check FAILED (exit ${checked.code}, ${checked.seconds} s):\n${checked.output}\n`,
);
process.exitCode = tests.code || checked.code;
