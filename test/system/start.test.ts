// The README's start command on a fresh data directory: it serves, prints the demo sign-in once, the sign-in
// works over HTTP, and SIGTERM stops it cleanly. A second start on the same directory prints nothing new.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openPglite } from '../../src/db/database.ts';
import { freePort } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';
import { START_ARGS, START_ENV } from '../support/start-command.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number) {
  const child = spawn(process.execPath, START_ARGS, {
    env: {
      ...START_ENV,
      PATH: process.env.PATH,
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      SVC_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`exited early: ${out}`);
      return out.includes('Server listening');
    },
    // a first start under a loaded machine can take half a minute
    { timeoutMs: 120_000, what: () => `the server to listen: ${out}` },
  );
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

it('starts on the embedded database, prints the demo sign-in once, and stops on SIGTERM', async () => {
  const port = await freePort();
  const first = await start(port);
  const printed = /email:\s+(\S+)\s+password:\s+(\S+)/.exec(first.output());
  expect(printed).not.toBeNull();
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/v1/merchant/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: printed![1], password: printed![2] }),
  });
  expect(login.status).toBe(200);
  const { data } = (await login.json()) as { data: { token: string } };
  const me = await fetch(`${base}/api/v1/merchant/me`, {
    headers: { authorization: `Bearer ${data.token}` },
  });
  expect(me.status).toBe(200);
  expect(await stop(first.child)).toBe(0);

  const second = await start(port);
  expect(second.output()).not.toContain('password:');
  const again = await fetch(`${base}/api/v1/merchant/me`, {
    headers: { authorization: `Bearer ${data.token}` },
  });
  expect(again.status).toBe(200); // sessions live in the database, not in the process
  expect(await stop(second.child)).toBe(0);

  // The embedded database runs with the smaller shared buffers of openPglite (database.ts says why).
  const pglite = await openPglite(dataDir);
  const { rows } = await pglite.query('show shared_buffers');
  await pglite.close();
  expect(rows).toEqual([{ shared_buffers: '16MB' }]);
}, 300_000);
