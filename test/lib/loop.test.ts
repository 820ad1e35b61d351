// The background loop: no overlap, a kick mid-run is not lost, and stop waits for the run in progress. Its
// timers are Vitest's fake ones: each test moves time itself, so a run "takes" exactly what it says.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Loop } from '../../src/lib/loop.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A run that lasts `ms` of the fake clock. */
// eslint-disable-next-line no-restricted-syntax -- a fake timer: it fires only when the test advances time
const lasting = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

it('never runs twice at once, and a kick during a run asks for exactly one more', async () => {
  let active = 0;
  let most = 0;
  let runs = 0;
  const loop = new Loop({
    name: 'test',
    everyMs: 60_000,
    onError: () => {},
    run: async () => {
      active++;
      most = Math.max(most, active);
      runs++;
      await lasting(30);
      active--;
    },
  });
  loop.start();
  loop.kick();
  loop.kick();
  loop.kick();
  await vi.advanceTimersByTimeAsync(120);
  await loop.stop();
  expect(most).toBe(1);
  expect(runs).toBe(2);
});

it('stop waits for the run in progress and schedules nothing after it', async () => {
  let finished = false;
  let runs = 0;
  const loop = new Loop({
    name: 'test',
    everyMs: 5,
    runAtStart: true,
    onError: () => {},
    run: async () => {
      runs++;
      await lasting(40);
      finished = true;
    },
  });
  loop.start();
  await vi.advanceTimersByTimeAsync(5);
  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(34);
  expect(stopped).toBe(false); // the run still has a millisecond to go
  await vi.advanceTimersByTimeAsync(1);
  await stopping;
  expect(finished).toBe(true);
  const after = runs;
  await vi.advanceTimersByTimeAsync(30);
  expect(runs).toBe(after);
});

it('reports a failed run and keeps going', async () => {
  const errors: string[] = [];
  let runs = 0;
  const loop = new Loop({
    name: 'flaky',
    everyMs: 5,
    runAtStart: true,
    onError: (err, name) => errors.push(`${name}: ${(err as Error).message}`),
    run: async () => {
      if (++runs === 1) throw new Error('boom');
    },
  });
  loop.start();
  await vi.advanceTimersByTimeAsync(60);
  await loop.stop();
  expect(errors).toEqual(['flaky: boom']);
  expect(runs).toBeGreaterThan(1);
});
