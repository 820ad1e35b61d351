// Last uses written in batches (src/lib/last-uses.ts), the one way key pairs and OAuth grants record them:
// what a write receives, the throttle, a failed write that keeps its uses, and the stop that writes the rest.
import { expect, it } from 'vitest';
import { LastUses } from '../../src/lib/last-uses.ts';

function recording(options: { throttleMs?: number; failing?: () => boolean } = {}) {
  const writes: Record<string, number>[] = [];
  const uses = new LastUses({
    name: 'test last-use flush',
    everyMs: 60_000,
    throttleMs: options.throttleMs,
    write: async (batch) => {
      if (options.failing?.()) throw new Error('database away');
      writes.push(Object.fromEntries(batch));
    },
    onError: () => {},
  });
  return { uses, writes };
}

it('writes the latest use of each id noted since the previous write, once', async () => {
  const { uses, writes } = recording();
  uses.note('key_a', 1_000);
  uses.note('key_b', 1_500);
  uses.note('key_a', 2_000);
  expect(uses.pending('key_a')).toBe(2_000);
  await uses.flush();
  await uses.flush();
  expect(writes).toEqual([{ key_a: 2_000, key_b: 1_500 }]);
  expect(uses.pending('key_a')).toBeUndefined();
  await uses.stop();
});

it('notes a repeated use at most once per throttle period', async () => {
  const { uses, writes } = recording({ throttleMs: 60_000 });
  uses.note('grt_a', 0);
  uses.note('grt_a', 30_000);
  await uses.flush();
  uses.note('grt_a', 59_999); // written once already within the minute
  await uses.flush();
  uses.note('grt_a', 60_000);
  await uses.stop();
  expect(writes).toEqual([{ grt_a: 0 }, { grt_a: 60_000 }]);
});

it('keeps the uses of a failed write for the next one, unless a newer use replaced them', async () => {
  let down = true;
  const { uses, writes } = recording({ failing: () => down });
  uses.note('key_a', 1_000);
  uses.note('key_b', 1_000);
  const failed = uses.flush();
  uses.note('key_b', 2_000); // while the write is under way
  await expect(failed).rejects.toThrow('database away');
  down = false;
  await uses.flush();
  expect(writes).toEqual([{ key_a: 1_000, key_b: 2_000 }]);
  await uses.stop();
});

it('writes what is left when it stops', async () => {
  const { uses, writes } = recording();
  uses.note('key_a', 1_000);
  await uses.stop();
  expect(writes).toEqual([{ key_a: 1_000 }]);
});
