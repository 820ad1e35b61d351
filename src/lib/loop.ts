// A background loop: `run` every `everyMs`, never two runs at once, and a stop that waits for the run in
// progress. The next run is scheduled when one ends (not on a fixed beat), so a slow run delays the next
// instead of piling up behind it. `kick` asks for a run now and `runWithin` for one within some time (a retry
// that falls due, a back-off that ends): the loop runs at the earliest time anyone asked for, and a request
// that arrives mid-run is kept for the run after it, so no wake-up is lost. `gapMs` keeps runs apart: a run
// asked for sooner than that after the previous one ended waits for the rest.
// These times say when to look again, not what is due: they are measured on the process's monotonic clock
// (performance.now), and what a run finds due is decided by the run, against the service's clock.

export interface LoopOptions {
  /** Named in the log line of a failed run. */
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  /** A failed run is reported here and the loop goes on; the next run retries. */
  onError: (err: unknown, name: string) => void;
  /** Run once at start rather than after the first interval. */
  runAtStart?: boolean;
  /** The least time between the end of a run and the start of the next (default 0). */
  gapMs?: number;
}

export class Loop {
  readonly name: string;
  private readonly options: LoopOptions;
  private stopped = true;
  private running: Promise<void> | undefined;
  private lastEnd = -Infinity;
  /** The regular run: `everyMs` after the last one ended (or after start). */
  private pollAt = Infinity;
  /** A run was asked for now (`kick`): the next run to begin serves it. */
  private kicked = false;
  /** The earliest later run asked for (`runWithin`): a run that begins at or after it serves it. */
  private wantedAt = Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires; Infinity when none is set. */
  private timerAt = Infinity;

  constructor(options: LoopOptions) {
    this.name = options.name;
    this.options = options;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.kicked = false;
    this.wantedAt = Infinity;
    this.pollAt = performance.now() + this.options.everyMs;
    if (this.options.runAtStart) this.kick();
    else this.schedule();
  }

  /** Runs now, or right after the run in progress (and the gap). */
  kick(): void {
    this.runWithin(0);
  }

  /** Runs within `ms` (or right after the run in progress, if that ends later). */
  runWithin(ms: number): void {
    if (this.stopped) return;
    if (ms > 0) this.wantedAt = Math.min(this.wantedAt, performance.now() + ms);
    else this.kicked = true;
    if (!this.running) this.schedule();
  }

  /** Stops scheduling and waits for the run in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.running;
  }

  /** Sets the timer for the next run, or runs now when that is due. */
  private schedule(): void {
    const wanted = this.kicked ? -Infinity : Math.min(this.wantedAt, this.pollAt);
    const at = Math.max(wanted, this.lastEnd + (this.options.gapMs ?? 0));
    if (at >= this.timerAt) return;
    this.clearTimer();
    const now = performance.now();
    if (at <= now) return this.runNow(now);
    this.timerAt = at;
    // Node's timers count from the event loop's cached time, so one may fire a millisecond or two early: it
    // sets itself again for the rest (a retry woken early found nothing due, and waited for the next poll).
    this.timer = setTimeout(() => {
      this.clearTimer();
      this.schedule();
    }, at - now);
    this.timer.unref();
  }

  private runNow(now: number): void {
    this.clearTimer();
    this.kicked = false;
    if (this.wantedAt <= now) this.wantedAt = Infinity;
    this.running = this.once().finally(() => {
      this.running = undefined;
      this.lastEnd = performance.now();
      this.pollAt = this.lastEnd + this.options.everyMs;
      if (!this.stopped) this.schedule();
    });
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private async once(): Promise<void> {
    try {
      await this.options.run();
    } catch (err) {
      this.options.onError(err, this.name);
    }
  }
}

/** The usual `onError`: a warning with the error, naming the loop. */
export function warnOnFailure(log: { warn(obj: object, msg: string): void }) {
  return (err: unknown, name: string) => log.warn({ err }, `${name} failed; the next run retries`);
}
