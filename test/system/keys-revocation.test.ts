// Two operating-system processes (`node src/main.ts`) share one PostgreSQL database. A key revoked, or
// rotated with no grace, through process A is refused by process B within one second, although B had it
// in its verification cache: the change travels by LISTEN/NOTIFY. (pg project only: see vitest.config.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, MASTER_KEY } from '../support/service.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
// Even if the test worker itself is torn down before afterAll runs, no child outlives it.
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startProcess(databaseUrl: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_LOG_LEVEL: 'silent',
      SVC_RATE_LIMIT: 'off',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited early: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`process not ready after 30 s: ${stderr}`);
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return base;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(
  base: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
) {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as { data: Record<string, string> } };
}

const COUNTRIES = '/api/public/v1/payments/supported-countries';

/** Polls every 50 ms until `base` refuses `token`; the time from `since` until the first refusal. */
async function refusedAfter(base: string, token: string, since: number): Promise<number> {
  for (;;) {
    const { status } = await call(base, COUNTRIES, { token });
    if (status === 401) return Date.now() - since;
    expect(status).toBe(200);
    if (Date.now() - since > 5000) return Infinity;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = await Promise.all([startProcess(database.url!), startProcess(database.url!)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  await database?.drop();
}, 30_000);

describe('key invalidation across operating-system processes', () => {
  let session: string;
  beforeAll(async () => {
    const signup = await call(a, '/api/v1/merchant/auth/signup', {
      method: 'POST',
      body: {
        merchant_name: 'Two processes',
        email: `two-${Date.now()}@example.com`,
        password: '0123456789ab',
      },
    });
    expect(signup.status).toBe(201);
    session = signup.json.data.token!;
  });

  async function warmKey() {
    const created = await call(a, '/api/v1/merchant/api-keys', { method: 'POST', token: session, body: {} });
    expect(created.status).toBe(201);
    const key = created.json.data;
    for (const base of [a, b]) {
      for (const token of [key.secret_key!, key.publishable_key!]) {
        expect((await call(base, COUNTRIES, { token })).status).toBe(200);
      }
    }
    return key;
  }

  it('a revocation through A is refused by B within one second, and by A at once', async () => {
    const key = await warmKey();
    const revoked = await call(a, `/api/v1/merchant/api-keys/${key.id}/revoke`, {
      method: 'POST',
      token: session,
    });
    expect(revoked.status).toBe(200);
    const answered = Date.now();
    expect((await call(a, COUNTRIES, { token: key.secret_key })).status).toBe(401);
    const [sk, pk] = await Promise.all([
      refusedAfter(b, key.secret_key!, answered),
      refusedAfter(b, key.publishable_key!, answered),
    ]);
    expect(sk).toBeLessThan(1000);
    expect(pk).toBeLessThan(1000);
  });

  it('a rotation with no grace through A is refused by B within one second', async () => {
    const key = await warmKey();
    const rotated = await call(a, `/api/v1/merchant/api-keys/${key.id}/rotate`, {
      method: 'POST',
      token: session,
      body: { previous_key_expires_in: 0 },
    });
    expect(rotated.status).toBe(201);
    const answered = Date.now();
    expect((await call(a, COUNTRIES, { token: key.secret_key })).status).toBe(401);
    expect(await refusedAfter(b, key.secret_key!, answered)).toBeLessThan(1000);
    expect(await refusedAfter(b, key.publishable_key!, answered)).toBeLessThan(1000);
    expect((await call(b, COUNTRIES, { token: rotated.json.data.secret_key })).status).toBe(200);
  });
});
