// A batcher fed by `offer` (the request log's recorder): no promise per item, a bound on what waits, a write at
// least once per linger and at once when a batch is full, and a flush that does not wait out the linger. The
// linger runs on Vitest's fake timers: the test moves time instead of sleeping.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Batcher } from '../../src/lib/batcher.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

function recorder(options: { capacity?: number; maxBatch?: number; fail?: boolean } = {}) {
  const batches: number[][] = [];
  const failures: number[] = [];
  let release: (() => void) | undefined;
  const batcher = new Batcher<number, void>({
    maxBatch: options.maxBatch ?? 100,
    lingerMs: 1000,
    capacity: options.capacity,
    onError: (_err, size) => failures.push(size),
    write: async (items) => {
      batches.push([...items]);
      if (options.fail) throw new Error('the database is away');
      await new Promise<void>((r) => (release = r));
      return items.map(() => undefined);
    },
  });
  return { batcher, batches, failures, finish: () => release?.() };
}

it('writes what was offered within the linger, not before', async () => {
  const r = recorder();
  expect(r.batcher.offer(1)).toBe(true);
  expect(r.batcher.offer(2)).toBe(true);
  await vi.advanceTimersByTimeAsync(999);
  expect(r.batches).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(r.batches).toEqual([[1, 2]]);
  r.finish();
  await r.batcher.drained();
});

it('writes a full batch at once, without waiting out the linger', async () => {
  const r = recorder({ maxBatch: 3 });
  for (const i of [1, 2, 3]) r.batcher.offer(i);
  await vi.advanceTimersByTimeAsync(0);
  expect(r.batches).toEqual([[1, 2, 3]]);
  r.finish();
  await r.batcher.drained();
});

it('refuses past its capacity while a write is slow, and takes items again once it caught up', async () => {
  const r = recorder({ capacity: 2, maxBatch: 2 });
  r.batcher.offer(1);
  r.batcher.offer(2); // a full batch: written now, and that write does not finish yet
  await vi.advanceTimersByTimeAsync(0);
  expect([r.batcher.offer(3), r.batcher.offer(4), r.batcher.offer(5)]).toEqual([true, true, false]);
  expect(r.batcher.waiting).toBe(2);
  r.finish();
  await vi.advanceTimersByTimeAsync(0);
  expect(r.batches).toEqual([
    [1, 2],
    [3, 4],
  ]);
  expect(r.batcher.offer(6)).toBe(true);
  r.finish();
  const flushed = r.batcher.flush();
  await vi.advanceTimersByTimeAsync(0);
  r.finish();
  await flushed;
  expect(r.batches.at(-1)).toEqual([6]);
});

it('flushes at once on demand (a stop), and reports a failed write with its size', async () => {
  const r = recorder({ fail: true });
  r.batcher.offer(1);
  r.batcher.offer(2);
  await r.batcher.flush();
  expect(r.batches).toEqual([[1, 2]]);
  expect(r.failures).toEqual([2]);
});
