// A per-process cache kept right by LISTEN/NOTIFY rather than by short lifetimes. A change notifies the
// cache's channel in its transaction, naming a tag (an id); at commit every process drops the entries of
// that tag. Listening starts before the first read, and is tried again at the next read if it failed. A
// read that raced an eviction is not cached (the epoch moved while it read). A lost listening connection
// clears everything (`onReset`): the notifications of the gap are gone. At `maxEntries` the oldest entry
// is dropped first, the one policy of every cache here.
import type { Bus } from './bus.ts';

export interface BusCacheOptions<V> {
  channel: string;
  maxEntries: number;
  /** What a notification names: dropping a tag drops every entry whose value carries it. */
  tagOf: (value: V) => string;
}

export class BusCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly tags = new Map<string, Set<string>>();
  private epoch = 0;
  private listening: Promise<void> | undefined;
  private readonly bus: Bus;
  private readonly options: BusCacheOptions<V>;

  constructor(bus: Bus, options: BusCacheOptions<V>) {
    this.bus = bus;
    this.options = options;
    bus.onReset(() => this.clear());
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Listens on the channel; a failure is thrown here and tried again by the next call. */
  listen(): Promise<void> {
    this.listening ??= this.bus
      .listen(this.options.channel, (tag) => this.evict(tag))
      .then(
        () => undefined,
        (err: unknown) => {
          this.listening = undefined;
          throw err;
        },
      );
    return this.listening;
  }

  /**
   * Reads through `read` and caches a found value under each of `keys` unless an eviction raced the read.
   * Nothing found is not cached: what does not exist yet may exist a moment later.
   */
  async load(keys: readonly string[], read: () => Promise<V | undefined>): Promise<V | undefined> {
    await this.listen();
    const epoch = this.epoch;
    const value = await read();
    if (value !== undefined && epoch === this.epoch) for (const key of keys) this.set(key, value);
    return value;
  }

  /** Drops the entries of a tag in this process at once (the notification reaches the others at commit). */
  evict(tag: string): void {
    this.epoch++;
    const keys = this.tags.get(tag);
    if (!keys) return;
    this.tags.delete(tag);
    for (const key of keys) this.entries.delete(key);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.tags.clear();
  }

  private set(key: string, value: V): void {
    if (!this.entries.has(key) && this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value!;
      this.untag(oldest);
      this.entries.delete(oldest);
    }
    this.untag(key);
    this.entries.set(key, value);
    const tag = this.options.tagOf(value);
    let keys = this.tags.get(tag);
    if (!keys) this.tags.set(tag, (keys = new Set()));
    keys.add(key);
  }

  private untag(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    const tag = this.options.tagOf(old);
    const keys = this.tags.get(tag);
    keys?.delete(key);
    if (keys?.size === 0) this.tags.delete(tag);
  }
}
