// A batcher with a linger waits that long for company before each write, so items a few ms apart share one.
// The linger is a timer: Vitest's fake timers let the test say exactly when it ends.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Batcher } from '../../src/lib/batcher.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

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
  await vi.advanceTimersByTimeAsync(5);
  const second = b.submit(2);
  await vi.advanceTimersByTimeAsync(24);
  expect(batches).toEqual([]); // nothing written before the linger is over
  await vi.advanceTimersByTimeAsync(1);
  expect(await Promise.all([first, second])).toEqual([1, 2]);
  expect(batches).toEqual([[1, 2]]);
  const third = b.submit(3);
  await vi.advanceTimersByTimeAsync(30);
  await third;
  expect(batches).toEqual([[1, 2], [3]]);
  await b.drained();
});
