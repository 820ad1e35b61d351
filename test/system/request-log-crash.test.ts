// What a crash loses of the request log: a service process SIGKILLed while calls stream in loses only the
// entries still in its buffer, the newest ones, about the last second's (the recorder writes at least once
// per FLUSH_EVERY_MS, test/lib/batcher-offer.test.ts), and none written before. The loss is measured and
// printed; docs/scaling.md states it. (pg project only: a second process cannot open PGlite.)
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, killAll, startProcess, stopAll } from '../support/processes.ts';
import { FLUSH_EVERY_MS } from '../../src/modules/requests/index.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let client: pg.Client;
beforeAll(async () => {
  database = await freshDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  killAll();
  await client?.end();
  await database?.drop();
});

async function merchantWithKey(url: string, email: string) {
  const signup = await call(url, '/api/v1/merchant/auth/signup', {
    method: 'POST',
    body: { merchant_name: 'Recorded', email, password: 'correct horse battery' },
  });
  const key = await call(url, '/api/v1/merchant/api-keys', {
    method: 'POST',
    token: signup.data.token,
    body: {},
  });
  return { merchantId: signup.data.merchant.id as string, secret: key.data.secret_key as string };
}

async function recorded(merchantId: string): Promise<Set<string>> {
  const { rows } = await client.query<{ request_id: string }>(
    'select request_id from request_logs where merchant_id = $1',
    [merchantId],
  );
  return new Set(rows.map((r) => r.request_id));
}

it('a stop (SIGTERM) writes what the buffer holds before the process exits', async () => {
  const b = await startProcess(database.url!);
  const { merchantId, secret } = await merchantWithKey(b.url, 'stop@example.com');
  const ids = Array.from({ length: 20 }, (_, i) => `req_stop_${i}`);
  for (const id of ids) {
    const res = await fetch(`${b.url}/api/public/v1/stores`, {
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': id },
    });
    expect(res.status).toBe(200);
  }
  await stopAll();
  expect([...(await recorded(merchantId))].sort()).toEqual([...ids].sort());
});

it('a SIGKILL loses only the newest entries, those of about the last second', async () => {
  const a = await startProcess(database.url!);
  const { merchantId, secret } = await merchantWithKey(a.url, 'crash@example.com');

  // Calls one after another for three seconds, each answered at a known time; then the kill, at once.
  const answered: { id: string; at: number }[] = [];
  const until = Date.now() + 3 * FLUSH_EVERY_MS;
  while (Date.now() < until) {
    const id = `req_crash_${String(answered.length).padStart(5, '0')}`;
    const res = await fetch(`${a.url}/api/public/v1/stores`, {
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': id },
    });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    answered.push({ id, at: Date.now() });
  }
  const killedAt = Date.now();
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));

  const kept = await recorded(merchantId);
  const lost = answered.filter((c) => !kept.has(c.id));
  // What was written survives whole, and what is lost is the tail: no entry older than a lost one is missing.
  expect(kept.size).toBe(answered.length - lost.length);
  expect(answered.slice(answered.length - lost.length)).toEqual(lost);
  expect(kept.size).toBeGreaterThan(0);

  const oldestLostMs = lost.length ? killedAt - lost[0]!.at : 0;
  process.stdout.write(
    `request log crash: ${answered.length} calls in ${3 * FLUSH_EVERY_MS} ms, ${lost.length} lost, ` +
      `the oldest answered ${oldestLostMs} ms before the kill\n`,
  );
  // A bound with room for a loaded machine: without a flush per second the loss would be all three seconds.
  expect(oldestLostMs).toBeLessThan(2.5 * FLUSH_EVERY_MS);
});
