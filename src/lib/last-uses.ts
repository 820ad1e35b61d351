// When each credential (a key pair, an OAuth grant) was last used, written in batches: a write per request
// would double the cost of a bearer check, while "last used" shown to the minute needs one write per credential
// every few seconds at most. The hot path notes a use in memory (a Map); a loop writes what was noted since its
// last run in one statement, every `everyMs` once a first use started it; a stop writes the rest. A write that
// fails keeps its uses for the next one, unless a newer use replaced them meanwhile.
import { Loop } from './loop.ts';

export interface LastUsesOptions {
  /** Named in the log line of a failed write. */
  name: string;
  everyMs: number;
  /** A repeated use of one id is noted at most this often (default 0: every use). */
  throttleMs?: number;
  /** Writes a batch of last uses (epoch ms, by id), in one statement that never moves a time backwards. */
  write: (uses: ReadonlyMap<string, number>) => Promise<void>;
  /** A failed write of the loop is reported here; the next run retries it. */
  onError: (err: unknown, name: string) => void;
}

// Ids remembered for throttling: past this, the memory starts afresh (a use or two more get written).
const MAX_THROTTLED = 100_000;

export class LastUses {
  private waiting = new Map<string, number>();
  /** When each id's use was last noted, for the throttle. */
  private readonly noted = new Map<string, number>();
  private readonly loop: Loop;
  private readonly options: LastUsesOptions;
  private stopped = false;

  constructor(options: LastUsesOptions) {
    this.options = options;
    this.loop = new Loop({
      name: options.name,
      everyMs: options.everyMs,
      run: () => this.flush(),
      onError: options.onError,
    });
  }

  /** A use of `id` at `at` (epoch ms, the service's clock). */
  note(id: string, at: number): void {
    const throttle = this.options.throttleMs;
    if (throttle) {
      if (at - (this.noted.get(id) ?? -Infinity) < throttle) return;
      if (this.noted.size >= MAX_THROTTLED) this.noted.clear();
      this.noted.set(id, at);
    }
    this.waiting.set(id, at);
    if (!this.stopped) this.loop.start(); // once running, a no-op
  }

  /** This process's last use of `id` not yet written, if any (epoch ms). */
  pending(id: string): number | undefined {
    return this.waiting.get(id);
  }

  /** Writes the uses noted since the previous write, in one statement. */
  async flush(): Promise<void> {
    if (this.waiting.size === 0) return;
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      await this.options.write(batch);
    } catch (err) {
      for (const [id, at] of batch) if (!this.waiting.has(id)) this.waiting.set(id, at);
      throw err;
    }
  }

  /** Stops the loop, then writes what is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.flush();
  }
}
