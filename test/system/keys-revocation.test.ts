// Two operating-system processes (`node src/main.ts`) share one PostgreSQL database. A key revoked, or
// rotated with no grace, through process A is refused by process B within one second, although B had it
// in its verification cache: the change travels by LISTEN/NOTIFY. (pg project only: see vitest.config.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, startProcess, stopAll } from '../support/processes.ts';
import { eventually } from '../support/eventually.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;

const COUNTRIES = '/api/public/v1/payments/supported-countries';

/** Polls every 50 ms until `base` refuses `token` (5 s at most); the time from `since` until the refusal. */
async function refusedAfter(base: string, token: string, since: number): Promise<number> {
  await eventually(
    async () => {
      const { status } = await call(base, COUNTRIES, { token });
      if (status !== 401) expect(status).toBe(200);
      return status === 401;
    },
    {
      timeoutMs: Math.max(0, since + 5000 - Date.now()),
      intervalMs: 50,
      what: 'the other process to refuse',
    },
  );
  return Date.now() - since;
}

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = (await Promise.all([startProcess(database.url!), startProcess(database.url!)])).map(
    (p) => p.url,
  ) as [string, string];
}, 60_000);

afterAll(async () => {
  await stopAll();
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
    session = signup.data.token!;
  });

  async function warmKey() {
    const created = await call(a, '/api/v1/merchant/api-keys', { method: 'POST', token: session, body: {} });
    expect(created.status).toBe(201);
    const key = created.data;
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
      refusedAfter(b, key.secret_key, answered),
      refusedAfter(b, key.publishable_key, answered),
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
    expect(await refusedAfter(b, key.secret_key, answered)).toBeLessThan(1000);
    expect(await refusedAfter(b, key.publishable_key, answered)).toBeLessThan(1000);
    expect((await call(b, COUNTRIES, { token: rotated.data.secret_key })).status).toBe(200);
  });
});
