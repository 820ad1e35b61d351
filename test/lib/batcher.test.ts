// The batcher: concurrent items share a write, a key never twice in one batch, at most N writes in flight,
// and a failed write rejects its own items (reported once) without touching the next batch. A write lasts a
// few milliseconds of Vitest's fake timers, which each test runs to the end itself.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Batcher } from '../../src/lib/batcher.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A write that lasts `ms` of the fake clock. */
// eslint-disable-next-line no-restricted-syntax -- a fake timer: it fires only when the test runs the timers
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('writes a lone item at once and coalesces what arrives during a write', async () => {
  const batches: number[][] = [];
  const b = new Batcher<number, number>({
    maxBatch: 100,
    onError: () => {},
    write: async (items) => {
      batches.push([...items]);
      await later(20);
      return items.map((i) => i * 2);
    },
  });
  const results = Promise.all([1, 2, 3, 4].map((i) => b.submit(i)));
  await vi.runAllTimersAsync();
  expect(await results).toEqual([2, 4, 6, 8]);
  expect(batches).toEqual([[1], [2, 3, 4]]);
});

it('keeps a key out of a batch that has it already, and bounds batches and writes in flight', async () => {
  const batches: string[][] = [];
  let inFlight = 0;
  let most = 0;
  const b = new Batcher<string, string>({
    maxBatch: 2,
    concurrency: 2,
    keyOf: (s) => s,
    onError: () => {},
    write: async (items) => {
      inFlight++;
      most = Math.max(most, inFlight);
      batches.push([...items]);
      await later(10);
      inFlight--;
      return items;
    },
  });
  const all = Promise.all(['a', 'a', 'b', 'c', 'd', 'e'].map((s) => b.submit(s)));
  await vi.runAllTimersAsync();
  await all;
  await b.drained();
  expect(most).toBe(2);
  for (const batch of batches) {
    expect(batch.length).toBeLessThanOrEqual(2);
    expect(new Set(batch).size).toBe(batch.length);
  }
  expect(batches.flat().sort()).toEqual(['a', 'a', 'b', 'c', 'd', 'e']);
});

it('rejects the items of a failed write with its error, reports it once, and writes the next batch', async () => {
  const reported: number[] = [];
  let calls = 0;
  const b = new Batcher<number, number>({
    maxBatch: 10,
    onError: (_err, size) => reported.push(size),
    write: async (items) => {
      calls++;
      await later(5);
      if (calls === 2) throw new Error('statement failed');
      return items;
    },
  });
  const first = b.submit(1);
  const failing = [b.submit(2), b.submit(3)];
  const settled = Promise.allSettled(failing); // handled before they reject
  await vi.runAllTimersAsync();
  await settled;
  await expect(first).resolves.toBe(1);
  for (const f of failing) await expect(f).rejects.toThrow('statement failed');
  expect(reported).toEqual([2]);
  const fourth = b.submit(4);
  await vi.runAllTimersAsync();
  await expect(fourth).resolves.toBe(4);
});
