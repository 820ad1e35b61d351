// Service processes (`node src/main.ts`) for the webhook system tests: start on a free port, wait until
// ready, call over HTTP; every child is killed by killAll() in afterAll.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../support/processes.ts';
import { MASTER_KEY } from '../support/service.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const INTERNAL_TOKEN = 'system-test-internal-token';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  pid: number;
}

const children: ChildProcess[] = [];

export async function startProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
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
      SVC_WEBHOOK_ALLOW_PRIVATE: '1',
      SVC_INTERNAL_TOKEN: INTERNAL_TOKEN,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited early: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`process not ready after 60 s: ${stderr}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, url, pid: child.pid! };
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function killAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}

export async function call<T = Record<string, unknown>>(
  base: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; data: T }> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, data: (text ? (JSON.parse(text) as { data: T }).data : undefined) as T };
}

/** A merchant signed up through `base`, with a webhook to `url` for order.created. */
export async function merchantWithWebhook(base: string, url: string) {
  const signup = await call<{ token: string; merchant: { id: string } }>(
    base,
    '/api/v1/merchant/auth/signup',
    {
      method: 'POST',
      body: { merchant_name: 'System', email: `sys-${Date.now()}@example.com`, password: 'long enough pw' },
    },
  );
  const token = signup.data.token;
  const hook = await call<{ id: string; secret: string }>(base, '/api/v1/merchant/webhooks', {
    method: 'POST',
    token,
    body: { url, events: ['order.created'] },
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
  return { token, merchantId: signup.data.merchant.id, webhookId: hook.data.id, secret: hook.data.secret };
}

/** Ingests `count` events through the given processes in turn, `concurrency` at a time; their ids. */
export async function emitMany(bases: string[], merchantId: string, count: number, concurrency = 16) {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let n = next++; n < count; n = next++) {
        const res = await fetch(`${bases[n % bases.length]}/internal/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ merchant_id: merchantId, mode: 'test', type: 'order.created', data: { n } }),
        });
        if (res.status !== 202) throw new Error(`emit ${n}: ${res.status} ${await res.text()}`);
        ids.push(((await res.json()) as { data: { id: string } }).data.id);
      }
    }),
  );
  return ids;
}
