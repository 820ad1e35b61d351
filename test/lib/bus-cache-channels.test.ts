// A bus-invalidated cache heard of on two channels (an access token by its grant and by its app): each
// channel drops the entries of its own tag, and the other channel's index forgets them too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BusCache } from '../../src/db/bus-cache.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { notify } from '../../src/db/bus.ts';
import { freshDatabase } from '../support/service.ts';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  database = await openDatabase({ databaseUrl: fresh.url, pglite: fresh.pglite, migrated: true });
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

interface Token {
  grant: string;
  app: string;
}

it('drops by the tag of whichever channel is notified', async () => {
  const c = new BusCache<Token>(database.bus, {
    channel: 'test_cache_grants',
    tagOf: (t) => t.grant,
    maxBytes: 2 ** 20,
    alsoOn: [{ channel: 'test_cache_apps', tagOf: (t) => t.app }],
  });
  await c.load(['t1'], async () => ({ grant: 'g1', app: 'a1' }));
  await c.load(['t2'], async () => ({ grant: 'g2', app: 'a1' }));
  await c.load(['t3'], async () => ({ grant: 'g3', app: 'a2' }));
  await database.db.transaction().execute((trx) => notify(trx, 'test_cache_apps', 'a1'));
  await expect.poll(() => c.get('t1'), { timeout: 2000 }).toBeUndefined();
  expect(c.get('t2')).toBeUndefined();
  expect(c.get('t3')).toEqual({ grant: 'g3', app: 'a2' });
  await database.db.transaction().execute((trx) => notify(trx, 'test_cache_grants', 'g3'));
  await expect.poll(() => c.get('t3'), { timeout: 2000 }).toBeUndefined();
  expect(c.size).toBe(0);
  // this process drops at once, by either channel's tag
  await c.load(['t4'], async () => ({ grant: 'g4', app: 'a4' }));
  c.evict('a4', 'test_cache_apps');
  expect(c.get('t4')).toBeUndefined();
});
