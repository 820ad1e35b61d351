// The background loop: no overlap, a kick mid-run is not lost, and stop waits for the run in progress.
import { expect, it } from 'vitest';
import { Loop } from '../../src/lib/loop.ts';

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
      await later(30);
      active--;
    },
  });
  loop.start();
  loop.kick();
  loop.kick();
  loop.kick();
  await later(120);
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
      await later(40);
      finished = true;
    },
  });
  loop.start();
  await later(5);
  await loop.stop();
  expect(finished).toBe(true);
  const after = runs;
  await later(30);
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
  await later(60);
  await loop.stop();
  expect(errors).toEqual(['flaky: boom']);
  expect(runs).toBeGreaterThan(1);
});
