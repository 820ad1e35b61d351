// A background loop: `run` every `everyMs`, never two runs at once, and a stop that waits for the run in
// progress. The next run is scheduled when one ends (not on a fixed beat), so a slow run delays the next
// instead of piling up behind it. `kick` asks for a run now: it joins the run in progress by asking for
// one more right after it, so a wake-up that arrives mid-run is never lost.

export interface LoopOptions {
  /** Named in the log line of a failed run. */
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  /** A failed run is reported here and the loop goes on; the next run retries. */
  onError: (err: unknown, name: string) => void;
  /** Run once at start rather than after the first interval. */
  runAtStart?: boolean;
}

export class Loop {
  readonly name: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly options: LoopOptions;

  constructor(options: LoopOptions) {
    this.name = options.name;
    this.options = options;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.options.runAtStart) this.kick();
    else this.schedule(this.options.everyMs);
  }

  /** Runs now, or right after the run in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.once().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.kick();
      } else this.schedule(this.options.everyMs);
    });
  }

  /** Stops scheduling and waits for the run in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
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
