// A batcher with a linger waits that long for company before each write, so items a few ms apart share one.
import { expect, it } from 'vitest';
import { Batcher } from '../../src/lib/batcher.ts';

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('holds the first item for the linger and writes what arrived meanwhile with it', async () => {
  const batches: number[][] = [];
  const b = new Batcher<number, number>({
    maxBatch: 100,
    lingerMs: 30,
    onError: () => {},
    write: async (items) => {
      batches.push([...items]);
      return [...items];
    },
  });
  const first = b.submit(1);
  await later(5);
  const second = b.submit(2);
  expect(batches).toEqual([]); // nothing written before the linger is over
  expect(await Promise.all([first, second])).toEqual([1, 2]);
  expect(batches).toEqual([[1, 2]]);
  await b.submit(3);
  expect(batches).toEqual([[1, 2], [3]]);
  await b.drained();
});
