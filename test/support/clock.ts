// The clock a test moves. The service takes every time it decides by (expiries, failure budgets, leases,
// retry schedules, purges) from `ctx.clock` (src/lib/time.ts): a test about time passes one of these to
// `startTestService({ clock })` and moves it, instead of sleeping until real time has passed.
import type { Clock } from '../../src/lib/time.ts';

export class TestClock implements Clock {
  private at: number;

  /** Stands still at `start` (epoch ms; now by default) until the test moves it. */
  constructor(start = Date.now()) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  /** Moves the clock `ms` on (back, if negative). */
  advance(ms: number): void {
    this.at += ms;
  }
}
