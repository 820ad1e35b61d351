// The batcher: concurrent items share a write, a key never twice in one batch, at most N writes in flight,
// and a failed write rejects its own items (reported once) without touching the next batch.
import { expect, it } from 'vitest';
import { Batcher } from '../../src/lib/batcher.ts';

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
  const results = await Promise.all([1, 2, 3, 4].map((i) => b.submit(i)));
  expect(results).toEqual([2, 4, 6, 8]);
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
  await Promise.all(['a', 'a', 'b', 'c', 'd', 'e'].map((s) => b.submit(s)));
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
  await expect(first).resolves.toBe(1);
  for (const f of failing) await expect(f).rejects.toThrow('statement failed');
  expect(reported).toEqual([2]);
  await expect(b.submit(4)).resolves.toBe(4);
});
