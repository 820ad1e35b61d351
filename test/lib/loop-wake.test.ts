// The loop's wake-ups besides its regular run: `runWithin` (a retry that falls due, a back-off that ends) is
// kept until a run serves it, even when a kick comes first or it is asked for mid-run, and `gapMs` keeps runs
// apart. Every loop here runs on its own once a minute, so a run seen within a test came from a wake-up. Its
// timers are Vitest's fake ones: each test moves time itself.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Loop } from '../../src/lib/loop.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A loop that counts its runs; while `held`, a run lasts until the test calls `release`. */
function counted(gapMs?: number) {
  let releases: (() => void)[] = [];
  const state = { runs: 0, held: false };
  const loop = new Loop({
    name: 'test',
    everyMs: 60_000,
    gapMs,
    onError: () => {},
    run: async () => {
      if (state.held) await new Promise<void>((resolve) => releases.push(resolve));
      state.runs++;
    },
  });
  const release = async () => {
    for (const r of releases) r();
    releases = [];
    await vi.advanceTimersByTimeAsync(0);
  };
  return { loop, state, release, running: () => releases.length > 0 };
}

it('runs within the time asked for, long before its regular run', async () => {
  const { loop, state } = counted();
  loop.start();
  loop.runWithin(30);
  await vi.advanceTimersByTimeAsync(29);
  expect(state.runs).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(state.runs).toBe(1);
  await loop.stop();
});

it('keeps a later wake-up when a kick runs first, and one asked for during a run', async () => {
  const { loop, state, release, running } = counted();
  loop.start();
  loop.runWithin(60);
  loop.kick();
  await vi.advanceTimersByTimeAsync(0);
  expect(state.runs).toBe(1);
  await vi.advanceTimersByTimeAsync(60);
  expect(state.runs).toBe(2);

  state.held = true;
  loop.kick();
  expect(running()).toBe(true);
  loop.runWithin(40); // during the run: served after it
  state.held = false;
  await release();
  expect(state.runs).toBe(3);
  await vi.advanceTimersByTimeAsync(40);
  expect(state.runs).toBe(4);
  await loop.stop();
});

it('starts a run no sooner than the gap after the previous one ended', async () => {
  const { loop, state, release, running } = counted(25);
  loop.start();
  state.held = true;
  loop.kick();
  loop.kick(); // during the first run
  expect(running()).toBe(true);
  state.held = false;
  await release();
  expect(state.runs).toBe(1);
  await vi.advanceTimersByTimeAsync(24);
  expect(state.runs).toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(state.runs).toBe(2);
  loop.kick(); // right after the second: waits for the gap too
  await vi.advanceTimersByTimeAsync(24);
  expect(state.runs).toBe(2);
  await vi.advanceTimersByTimeAsync(1);
  expect(state.runs).toBe(3);
  await loop.stop();
});
