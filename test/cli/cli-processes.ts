// The `svc` command as a child process that a test talks to while the service runs in the test's own
// process: asynchronous (a synchronous spawn would block the service that the command calls).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../support/eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

export interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Waits until stdout matches, and returns the match (20 s at most). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string>, input?: string): Cli {
  const child = spawn(process.execPath, ['bin/svc.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs = 20_000) =>
      eventually(
        async () => {
          const m = out.match(pattern);
          if (m) return m;
          if (child.exitCode !== null)
            throw new Error(`svc ${args.join(' ')} exited without ${pattern}:\n${out}\n${err}`);
          return undefined;
        },
        {
          timeoutMs,
          intervalMs: 25,
          what: () => `${pattern} in the output of svc ${args.join(' ')}:\n${out}\n${err}`,
        },
      ),
  };
}

/** Runs a command to its end: status and output. */
export async function runCli(args: string[], env: Record<string, string>, input?: string) {
  const cli = startCli(args, env, input);
  const status = await cli.exited;
  return { status, stdout: cli.stdout(), stderr: cli.stderr() };
}
