// The recorder's buffer. An entry is turned into its COPY text line the moment it is offered, and the line is
// written into memory outside V8's heap; its day counters are added up by group. Nothing of the request stays
// reachable after its hook: held for up to a second as objects, 20,000-odd entries a second outlived the
// young generation's collections and were copied into the old one, and that garbage collection cost the public
// read more than writing the entries did (bench/, CPU profiles, docs/performance-history.md). Batches close at
// MAX_BATCH entries, when their memory is full, or a second after their first entry, and are written one at
// a time, in order; past `capacity` entries waiting, `offer` refuses and the caller counts the drop.
import { copyLine, type Batch } from './record.repository.ts';
import type { RequestEntry } from './request-entry.ts';

export interface EntryBufferOptions {
  maxBatch: number;
  /** A batch is written at most this long after its first entry. */
  lingerMs: number;
  /** Most entries that may wait, not yet in a write. */
  capacity: number;
  /** Bytes of COPY text one batch holds at most. */
  batchBytes: number;
  write(batch: Batch): Promise<void>;
  onError(err: unknown, size: number): void;
}

// A batch's buffers are kept for the next batches, up to this many: a steady load allocates none.
const SPARE_BUFFERS = 2;

export class EntryBuffer {
  private open: Batch | undefined;
  private readonly closed: Batch[] = [];
  private writing = false;
  private waitingEntries = 0;
  private lingering: NodeJS.Timeout | undefined;
  private readonly spare: Buffer[] = [];
  private idle: (() => void)[] = [];
  private readonly arriving = new Set<Promise<unknown>>();
  private readonly options: EntryBufferOptions;

  constructor(options: EntryBufferOptions) {
    this.options = options;
  }

  /** False, and nothing kept, when `capacity` entries already wait. */
  offer(entry: RequestEntry): boolean {
    if (this.waitingEntries >= this.options.capacity) return false;
    const { line, day, group } = copyLine(entry);
    // At most three bytes of UTF-8 per UTF-16 unit: a line that might not fit goes to the next batch.
    if (this.open && this.open.bytes + 3 * line.length > this.open.text.length) this.close();
    const batch = (this.open ??= this.newBatch());
    batch.bytes += batch.text.write(line, batch.bytes, 'utf8');
    batch.size++;
    batch.days.add(day);
    const seen = batch.groups.get(group.key);
    if (seen) seen.n++;
    else batch.groups.set(group.key, group);
    this.waitingEntries++;
    if (batch.size >= this.options.maxBatch) this.close();
    else this.lingering ??= setTimeout(() => this.close(), this.options.lingerMs);
    return true;
  }

  /** Entries offered and not yet in a write. */
  get waiting(): number {
    return this.waitingEntries;
  }

  /**
   * An entry on its way, offered once `p` settles (a refused call whose owner is being looked up): `flush`
   * waits for it, so that a stop writes it too.
   */
  arriveLater(p: Promise<unknown>): void {
    this.arriving.add(p);
    const gone = () => this.arriving.delete(p);
    p.then(gone, gone);
  }

  /** Writes what waits now, without waiting out the linger, and resolves once all of it is written. */
  async flush(): Promise<void> {
    if (this.arriving.size > 0) await Promise.allSettled([...this.arriving]);
    this.close();
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private newBatch(): Batch {
    const text = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.options.batchBytes);
    return { text, bytes: 0, size: 0, days: new Set(), groups: new Map() };
  }

  private close(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.open) this.closed.push(this.open);
    this.open = undefined;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    for (let batch = this.closed.shift(); batch; batch = this.closed.shift()) {
      this.waitingEntries -= batch.size;
      try {
        await this.options.write(batch);
      } catch (err) {
        this.options.onError(err, batch.size);
      }
      if (this.spare.length < SPARE_BUFFERS) this.spare.push(batch.text);
    }
    this.writing = false;
    this.idle.splice(0).forEach((resolve) => resolve());
  }
}
