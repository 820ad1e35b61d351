// The bus-invalidated cache on a real database (both drivers): a notification committed by anyone drops
// the tagged entries, a read that raced an eviction is not cached, and past its bytes the oldest entries leave
// first.
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

interface Row {
  id: string;
  value: number;
}
const cache = (maxBytes = 2 ** 20) =>
  new BusCache<Row>(database.bus, { channel: 'test_bus_cache', maxBytes, tagOf: (r) => r.id });

/** The estimated bytes of one entry of a one-letter key and id. */
async function entryBytes(): Promise<number> {
  const one = cache();
  await one.load(['a'], async () => ({ id: 'a', value: 0 }));
  return one.bytes;
}

it('drops every key of a tag when its notification commits', async () => {
  const c = cache();
  await c.load(['by-id:a', 'by-name:alpha'], async () => ({ id: 'a', value: 1 }));
  await c.load(['by-id:b'], async () => ({ id: 'b', value: 2 }));
  expect(c.get('by-name:alpha')).toEqual({ id: 'a', value: 1 });
  await database.db.transaction().execute((trx) => notify(trx, 'test_bus_cache', 'a'));
  await expect.poll(() => c.get('by-id:a'), { timeout: 2000 }).toBeUndefined();
  expect(c.get('by-name:alpha')).toBeUndefined();
  expect(c.get('by-id:b')).toEqual({ id: 'b', value: 2 });
  expect(c.bytes).toBe(await entryBytes()); // what the dropped entries held is given back
});

it('does not cache a read that an eviction raced, nor a value not found', async () => {
  const c = cache();
  const value = await c.load(['k'], async () => {
    c.evict('x'); // any eviction during the read
    return { id: 'x', value: 1 };
  });
  expect(value).toEqual({ id: 'x', value: 1 });
  expect(c.get('k')).toBeUndefined();
  await c.load(['none'], async () => undefined);
  expect(c.size).toBe(0);
});

it('drops the oldest entry first when full', async () => {
  const one = await entryBytes();
  const c = cache(2 * one);
  for (const id of ['a', 'b', 'c']) await c.load([id], async () => ({ id, value: 0 }));
  expect(c.get('a')).toBeUndefined();
  expect(c.get('b')).toBeDefined();
  expect(c.get('c')).toBeDefined();
  expect(c.size).toBe(2);
  expect(c.bytes).toBe(2 * one);
});

it('bounds its entries by their bytes, not their number', async () => {
  const one = await entryBytes();
  const c = cache(3 * one);
  for (const id of ['a', 'b', 'c']) await c.load([id], async () => ({ id, value: 0 }));
  // an entry half as large again as the others makes room for itself by dropping two
  await c.load(['d'], async () => ({ id: 'd'.repeat(one / 2), value: 0 }));
  expect([c.get('a'), c.get('b')]).toEqual([undefined, undefined]);
  expect(c.get('c')).toBeDefined();
  expect(c.get('d')).toBeDefined();
  expect(c.bytes).toBeLessThanOrEqual(3 * one);
  // a value larger than the whole bound is returned and not kept
  const huge = { id: 'h'.repeat(3 * one), value: 0 };
  expect(await c.load(['h'], async () => huge)).toBe(huge);
  expect(c.get('h')).toBeUndefined();
  expect(c.size).toBe(2);
});
