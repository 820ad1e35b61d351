// Two services sharing one database behave as two processes: a change made through one reaches the other's
// verification cache by notification, within a second (in practice a few milliseconds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { eventually } from '../support/eventually.ts';
import { TestClock } from '../support/clock.ts';
import { bearer, createKey, keyCall, type TestKey } from './keys.ts';

let a: TestService;
let b: TestService;
let m: TestMerchant;
// One clock for both processes, as NTP keeps two hosts within milliseconds of each other.
const clock = new TestClock();
beforeAll(async () => {
  a = await startTestService({ clock });
  b = await startTestService({ shareWith: a, clock });
  m = await signupMerchant(a.app);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const readOn = (svc: TestService, token: string) =>
  svc.app.inject({ url: '/api/public/v1/payments/supported-countries', headers: bearer(token) });

async function refusedWithin(svc: TestService, token: string, ms: number): Promise<number> {
  const start = Date.now();
  await eventually(async () => (await readOn(svc, token)).statusCode === 401, {
    timeoutMs: ms,
    intervalMs: 10,
    what: 'the other service to refuse the key',
  });
  return Date.now() - start;
}

async function warm(key: TestKey) {
  for (const svc of [a, b]) {
    expect((await readOn(svc, key.secret_key)).statusCode).toBe(200);
    expect((await readOn(svc, key.publishable_key)).statusCode).toBe(200);
  }
}

describe('verification cache across processes', () => {
  it('serves warm verifications without a database query', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    // With the key's rows gone from the database, only the cache can still answer: this proves the warm
    // path does not query. (Revocation is the supported way, tested below; this is a probe of the cache.)
    const seen = await b.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(seen.id).toBe(key.id);
    await a.ctx.db
      .updateTable('api_keys')
      .set({ secret_key_hash: Buffer.alloc(32, 1) })
      .where('id', '=', key.id)
      .execute();
    expect((await readOn(b, key.secret_key)).statusCode).toBe(200);
  });

  it('a revocation through one process is refused by the other within a second', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    const res = await keyCall(a.app, m, key.id, 'revoke');
    expect(res.statusCode).toBe(200);
    // the answering process refuses at once
    expect((await readOn(a, key.secret_key)).statusCode).toBe(401);
    expect((await readOn(a, key.publishable_key)).statusCode).toBe(401);
    expect(await refusedWithin(b, key.secret_key, 1000)).toBeLessThan(1000);
    expect(await refusedWithin(b, key.publishable_key, 1000)).toBeLessThan(1000);
  });

  it('a rotation with no grace is refused by the other within a second', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    const res = await keyCall(a.app, m, key.id, 'rotate');
    expect(res.statusCode).toBe(201);
    expect((await readOn(a, key.secret_key)).statusCode).toBe(401);
    expect(await refusedWithin(b, key.secret_key, 1000)).toBeLessThan(1000);
    expect((await readOn(b, res.json().data.secret_key)).statusCode).toBe(200);
  });

  it('a rotation with a grace period keeps the old pair until then, checked from the cache', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    const res = await keyCall(a.app, m, key.id, 'rotate', { payload: { previous_key_expires_in: 1 } });
    expect(res.statusCode).toBe(201);
    expect((await readOn(b, key.secret_key)).statusCode).toBe(200);
    clock.advance(999);
    expect((await readOn(a, key.secret_key)).statusCode).toBe(200);
    expect((await readOn(b, key.publishable_key)).statusCode).toBe(200);
    clock.advance(1);
    expect((await readOn(a, key.secret_key)).statusCode).toBe(401);
    // the other process drops what it cached before the rotation when the notification arrives
    expect(await refusedWithin(b, key.secret_key, 1000)).toBeLessThan(1000);
    expect((await readOn(b, key.secret_key)).statusCode).toBe(401);
    expect((await readOn(b, key.publishable_key)).statusCode).toBe(401);
  });

  it.runIf(DB_KIND === 'pg')('a lost listening connection empties the cache once it is back', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    // a change nobody announces, as one made while the connection is down would be
    await a.ctx.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.id).execute();
    expect((await readOn(b, key.secret_key)).statusCode).toBe(200);
    // cut every LISTEN connection of the database: each bus reconnects and resets its caches
    const { sql } = await import('kysely');
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where datname = current_database() and query ilike 'listen %'`.execute(a.ctx.db);
    expect(await refusedWithin(b, key.secret_key, 5000)).toBeLessThan(5000);
  });
});

describe('deletion', () => {
  it('a key row deleted from the database is refused by every process within a second', async () => {
    const key = await createKey(a.app, m);
    await warm(key);
    await a.ctx.db.deleteFrom('api_keys').where('id', '=', key.id).execute();
    expect(await refusedWithin(a, key.secret_key, 1000)).toBeLessThan(1000);
    expect(await refusedWithin(b, key.publishable_key, 1000)).toBeLessThan(1000);
  });
});
