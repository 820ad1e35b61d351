// The loop's wake-ups besides its regular run: `runWithin` (a retry that falls due, a back-off that ends) is
// kept until a run serves it, even when a kick comes first or it is asked for mid-run, and `gapMs` keeps runs
// apart. Every loop here runs on its own once a minute, so a run seen within a test came from a wake-up.
import { expect, it } from 'vitest';
import { Loop } from '../../src/lib/loop.ts';
import { eventually } from '../support/eventually.ts';

/** A loop whose runs are recorded; while `held`, a run lasts until the test calls `release`. */
function recorded(gapMs?: number) {
  const runs: { start: number; end: number }[] = [];
  let releases: (() => void)[] = [];
  const state = { held: false };
  const loop = new Loop({
    name: 'test',
    everyMs: 60_000,
    gapMs,
    onError: () => {},
    run: async () => {
      const start = performance.now();
      if (state.held) await new Promise<void>((resolve) => releases.push(resolve));
      runs.push({ start, end: performance.now() });
    },
  });
  const release = () => {
    for (const r of releases) r();
    releases = [];
  };
  const running = () => releases.length > 0;
  return { loop, runs, state, release, running };
}

it('runs within the time asked for, long before its regular run', async () => {
  const { loop, runs } = recorded();
  loop.start();
  const asked = performance.now();
  loop.runWithin(30);
  await eventually(async () => runs.length === 1, { what: 'the run asked for' });
  expect(runs[0]!.start).toBeGreaterThanOrEqual(asked + 30);
  await loop.stop();
});

it('keeps a later wake-up when a kick runs first, and one asked for during a run', async () => {
  const { loop, runs, state, release, running } = recorded();
  loop.start();
  loop.runWithin(60);
  loop.kick();
  await eventually(async () => runs.length === 2, { what: 'the kick, then the wake-up' });

  state.held = true;
  loop.kick();
  expect(running()).toBe(true);
  loop.runWithin(40); // during the run: served after it
  state.held = false;
  release();
  await eventually(async () => runs.length === 4, { what: 'the second kick, then its wake-up' });
  await loop.stop();
});

it('starts a run no sooner than the gap after the previous one ended', async () => {
  const { loop, runs, state, release, running } = recorded(25);
  loop.start();
  state.held = true;
  loop.kick();
  loop.kick(); // during the first run
  expect(running()).toBe(true);
  state.held = false;
  release();
  await eventually(async () => runs.length === 2, { what: 'the run asked for during the first' });
  loop.kick(); // right after the second
  await eventually(async () => runs.length === 3, { what: 'the third run' });
  for (let i = 1; i < runs.length; i++) expect(runs[i]!.start).toBeGreaterThanOrEqual(runs[i - 1]!.end + 25);
  await loop.stop();
});
