// Group commit: concurrent calls coalesce into one statement. While `concurrency` writes are in flight,
// new items queue; the next free slot takes up to `maxBatch` of them at once. An idle process writes a lone
// item at once (no added latency); a busy one pays a statement's fixed cost once per batch instead of once
// per item. A failed write rejects every item of its batch with the error and is reported to `onError`
// (logged and counted by the owner): never silently retried item by item.

export interface BatcherOptions<I, O> {
  maxBatch: number;
  /** Writes in flight at once (default 1). */
  concurrency?: number;
  /** Items of one key never share a batch: a repeat waits for the next one (where it meets the first's result). */
  keyOf?: (item: I) => string;
  /**
   * How long a batch waits for company before it is written (default 0: at once). For a writer whose items
   * arrive a few at a time but steadily (the delivery outcomes), a few ms of waiting grows the batches.
   */
  lingerMs?: number;
  /** Writes the batch; the answer holds one result per item, in the items' order. */
  write: (items: readonly I[]) => Promise<readonly O[]>;
  onError: (err: unknown, size: number) => void;
}

interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (err: unknown) => void;
}

export class Batcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lingering: NodeJS.Timeout | undefined;
  private readonly options: BatcherOptions<I, O>;

  constructor(options: BatcherOptions<I, O>) {
    this.options = options;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.next();
    });
  }

  /** Resolves once nothing is queued or in flight: what was submitted before is written. */
  drained(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private take(): Pending<I, O>[] {
    const { maxBatch, keyOf } = this.options;
    if (!keyOf) return this.queue.splice(0, maxBatch);
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (const p of this.queue) {
      const key = keyOf(p.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(p);
      } else rest.push(p);
    }
    this.queue = rest;
    return batch;
  }

  /** Pumps now, or once the linger of the next batch is over; a full batch does not wait for company. */
  private next(): void {
    if (!this.options.lingerMs || this.queue.length >= this.options.maxBatch) {
      clearTimeout(this.lingering);
      this.lingering = undefined;
      return this.pump();
    }
    if (this.lingering || this.queue.length === 0) return;
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      this.pump();
    }, this.options.lingerMs);
  }

  private pump(): void {
    while (this.inFlight < (this.options.concurrency ?? 1) && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.next();
        if (this.inFlight === 0 && this.queue.length === 0) this.idle.splice(0).forEach((r) => r());
      });
    }
  }

  private async run(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.options.write(batch.map((p) => p.item));
      if (results.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} was answered with ${results.length} results`);
      }
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      this.options.onError(err, batch.length);
      for (const p of batch) p.reject(err);
    }
  }
}
