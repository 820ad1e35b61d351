// The sign-in failure budgets across operating-system processes (API.md 11.3 and 12.1): wrong TOTP codes sent
// to two processes on one PostgreSQL, with one of them restarted half-way, fill one budget, its size in
// wrong codes (six: five free, the sixth starts a wait), and the next answer is 429 `rate_limited`. Kept in
// PostgreSQL, and in Redis when SVC_REDIS_URL is set. Before, each process kept its own budgets in memory: 6 +
// 6 wrong codes passed, and a restart forgot them.
// (pg project only: see vitest.config.ts.)
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, startProcess, stopAll, type ServiceProcess } from '../support/processes.ts';
import { haveRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { codeAt } from '../merchants/factors-support.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let client: pg.Client;
let redis: RedisServer | undefined;

beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await stopAll();
  await client?.end();
  await redis?.stop();
  await database?.drop();
});

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

/** A user with TOTP on, signed up and enrolled through `base`; its `mfa_token` of a first step. */
async function userWithTotp(base: string) {
  const who = {
    email: `budget-${randomBytes(6).toString('hex')}@example.com`,
    password: 'correct horse battery',
  };
  const signup = await call(base, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: 'Budgets', ...who },
  });
  expect(signup.status).toBe(201);
  const token = signup.data.token as string;
  const started = await call(base, '/api/v1/merchant/auth/mfa/totp', { method: 'POST', token });
  expect(started.status).toBe(200);
  const secret = started.data.secret as string;
  const confirmed = await call(base, '/api/v1/merchant/auth/mfa/totp/confirm', {
    method: 'POST',
    token,
    body: { code: codeAt(secret, Date.now()) },
  });
  expect(confirmed.status).toBe(200);
  const first = await call(base, '/api/v1/merchant/auth/login', { method: 'POST', body: who });
  expect(first.data.mfa_required).toBe(true);
  return first.data.mfa_token as string;
}

async function wrongCode(base: string, mfaToken: string) {
  const res = await fetch(`${base}/api/v1/merchant/auth/login/mfa`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mfa_token: mfaToken, code: '000000' }),
  });
  const body = (await res.json()) as { error: { code: string } };
  return { status: res.status, code: body.error.code, retryAfter: res.headers.get('retry-after') };
}

/** Two wrong codes on each process, a restart of the first, one more on each, then one more. */
async function sixThenRefused(env: Record<string, string>) {
  const a = await startProcess(database.url!, env);
  const b = await startProcess(database.url!, env);
  const mfaToken = await userWithTotp(a.url);
  const answers: string[] = [];
  const started: number[] = [];
  const send = async (p: ServiceProcess) => {
    started.push(performance.now());
    const res = await wrongCode(p.url, mfaToken);
    answers.push(`${res.status} ${res.code}`);
    return res;
  };
  for (const p of [a, b, a, b]) await send(p);
  a.child.kill('SIGTERM');
  expect(await exited(a.child)).toBe(0);
  const port = new URL(a.url).port;
  const restarted = await startProcess(database.url!, { ...env, PORT: port });
  for (const p of [restarted, b]) await send(p);
  // The sixth starts a wait of 1 s, the next one 2 s: the seventh is refused, unless a busy host brought it
  // after the wait (it then counts and starts the next). A code let through sooner than its wait is a fault.
  let refused = await send(restarted);
  for (let wait = 1000; refused.status !== 429 && wait <= 4000; wait *= 2) {
    expect(performance.now() - started.at(-2)!, answers.join(', ')).toBeGreaterThanOrEqual(wait);
    refused = await send(restarted);
  }
  expect(answers.slice(0, 6)).toEqual(Array<string>(6).fill('401 invalid_credentials'));
  expect(answers.at(-1)).toBe('429 rate_limited');
  expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  expect((await wrongCode(b.url, mfaToken)).status).toBe(429);
  b.child.kill('SIGTERM');
  restarted.child.kill('SIGTERM');
  await Promise.all([exited(b.child), exited(restarted.child)]);
}

const failureRows = async () =>
  (await client.query<{ n: number }>('select count(*)::int as n from sign_in_failures')).rows[0]!.n;

it('fills one budget in PostgreSQL across two processes and a restart, then 429', async () => {
  await sixThenRefused({ SVC_RATE_LIMIT: 'on' });
  expect(await failureRows()).toBe(2); // the account's budget and the address's
}, 180_000);

it.skipIf(!haveRedis())(
  'fills one budget in Redis with SVC_REDIS_URL, the same way',
  async () => {
    await client.query('delete from sign_in_failures');
    redis = await startRedis();
    await sixThenRefused({ SVC_RATE_LIMIT: 'on', SVC_REDIS_URL: redis.url });
    expect(await failureRows()).toBe(0); // counted in Redis alone
  },
  180_000,
);
