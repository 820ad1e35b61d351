// The request log's buffer: entries held as COPY text, a bound on what waits, a write at least once per linger
// and at once when a batch is full (by entries or by bytes), batches written one at a time and in order, and a
// flush that does not wait out the linger. The linger runs on Vitest's fake timers: the test moves time
// instead of sleeping.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { EntryBuffer } from '../../src/modules/requests/entry-buffer.ts';
import type { RequestEntry } from '../../src/modules/requests/index.ts';
import { copyLine } from '../../src/modules/requests/record.repository.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

const entry = (n: number, error: string | null = null): RequestEntry => ({
  createdAt: Date.parse('2026-11-28T10:00:00.000Z') + n,
  merchantId: 'mer_1',
  mode: 'test',
  requestId: `req_${n}`,
  method: 'GET',
  path: '/api/public/v1/stores',
  route: '/api/public/v1/stores',
  status: error ? 404 : 200,
  durationMs: 1.5,
  credentialType: 'secret_key',
  credentialId: 'key_1',
  credentialLast4: 'wxyz',
  ip: '127.0.0.1',
  userAgent: 'vitest',
  idempotencyKey: null,
  replayed: false,
  error,
  appId: null,
  storeId: null,
  forOwner: false,
});

function buffer(options: { capacity?: number; maxBatch?: number; batchBytes?: number; fail?: boolean } = {}) {
  const batches: string[][] = [];
  const failures: number[] = [];
  let release: (() => void) | undefined;
  const entries = new EntryBuffer({
    maxBatch: options.maxBatch ?? 100,
    lingerMs: 1000,
    capacity: options.capacity ?? 1000,
    batchBytes: options.batchBytes ?? 64 * 1024,
    onError: (_err, size) => failures.push(size),
    write: async (batch) => {
      // the request ids of the batch's lines, read now: the buffer is reused once the write is over
      const lines = batch.text.toString('utf8', 0, batch.bytes).split('\n').slice(0, -1);
      expect(lines).toHaveLength(batch.size);
      batches.push(lines.map((line) => line.split('\t')[3]!));
      if (options.fail) throw new Error('the database is away');
      await new Promise<void>((r) => (release = r));
    },
  });
  return { entries, batches, failures, finish: () => release?.() };
}

it('writes what was offered within the linger, not before', async () => {
  const b = buffer();
  expect(b.entries.offer(entry(1))).toBe(true);
  expect(b.entries.offer(entry(2))).toBe(true);
  await vi.advanceTimersByTimeAsync(999);
  expect(b.batches).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(b.batches).toEqual([['req_1', 'req_2']]);
  b.finish();
});

it('writes a full batch at once, and a batch whose memory is full, without waiting out the linger', async () => {
  const b = buffer({ maxBatch: 3 });
  for (const n of [1, 2, 3]) b.entries.offer(entry(n));
  await vi.advanceTimersByTimeAsync(0);
  expect(b.batches).toEqual([['req_1', 'req_2', 'req_3']]);
  b.finish();

  // a line is taken where three bytes per character still fit: room for two lines, not for a third
  const length = copyLine(entry(1)).line.length;
  const small = buffer({ batchBytes: 5 * length - 1 });
  for (const n of [1, 2, 3]) small.entries.offer(entry(n));
  await vi.advanceTimersByTimeAsync(0);
  expect(small.batches).toEqual([['req_1', 'req_2']]);
  small.finish();
  await vi.advanceTimersByTimeAsync(1000);
  expect(small.batches).toEqual([['req_1', 'req_2'], ['req_3']]);
  small.finish();
});

it('refuses past its capacity while a write is slow, and takes entries again once it caught up', async () => {
  const b = buffer({ capacity: 2, maxBatch: 2 });
  b.entries.offer(entry(1));
  b.entries.offer(entry(2)); // a full batch: written now, and that write does not finish yet
  await vi.advanceTimersByTimeAsync(0);
  expect([b.entries.offer(entry(3)), b.entries.offer(entry(4)), b.entries.offer(entry(5))]).toEqual([
    true,
    true,
    false,
  ]);
  expect(b.entries.waiting).toBe(2);
  b.finish();
  await vi.advanceTimersByTimeAsync(0);
  expect(b.batches).toEqual([
    ['req_1', 'req_2'],
    ['req_3', 'req_4'],
  ]);
  expect(b.entries.offer(entry(6))).toBe(true);
  b.finish();
  const flushed = b.entries.flush();
  await vi.advanceTimersByTimeAsync(0);
  b.finish();
  await flushed;
  expect(b.batches.at(-1)).toEqual(['req_6']);
});

it('flushes at once on demand (a stop), and reports a failed write with its size', async () => {
  const b = buffer({ fail: true });
  b.entries.offer(entry(1));
  b.entries.offer(entry(2, '{"error":{"code":"not_found"}}'));
  await b.entries.flush();
  expect(b.batches).toEqual([['req_1', 'req_2']]);
  expect(b.failures).toEqual([2]);
  expect(b.entries.waiting).toBe(0);
});
