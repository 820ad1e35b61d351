// A per-process cache kept right by LISTEN/NOTIFY rather than by short lifetimes. A change notifies the
// cache's channel in its transaction, naming a tag (an id); at commit every process drops the entries of
// that tag. Listening starts before the first read, and is tried again at the next read if it failed. A
// read that raced an eviction is not cached (the epoch moved while it read). A lost listening connection,
// once back, clears everything (`onReset`): the notifications of the gap are gone. Past `maxBytes` (the
// entries' estimated size, src/lib/heap-bytes.ts) the oldest entries are dropped first, the one policy of every
// cache here: bounded by entries, one cache could hold 80 MB (100,000 access tokens at 808 bytes each,
// docs/decisions/0215-caches-bounded-by-bytes.md). A value may be heard of on more than one channel (`alsoOn`:
// an access token by its grant and by its app), each naming its own tag of the value.
import { heapBytes } from '../lib/heap-bytes.ts';
import type { Bus } from './bus.ts';

const WORD = 8;
/** An entry's share of the Map (its key, value and chain slots, its bucket) and the record of its size. */
const MAP_ENTRY = 9 * WORD;
/** Its place in one channel's tag index: a Set entry, and the Set itself when the tag is its alone. */
const TAG_ENTRY = 16 * WORD;

export interface BusWatch<V> {
  channel: string;
  /** What a notification names: dropping a tag drops every entry whose value carries it. */
  tagOf: (value: V) => string;
}

export interface BusCacheOptions<V> extends BusWatch<V> {
  /** The most the entries may hold, keys and values as estimated by `heapBytes`. */
  maxBytes: number;
  /** Further channels that drop entries, each by its own tag of the value. */
  alsoOn?: readonly BusWatch<V>[];
}

interface Watch<V> extends BusWatch<V> {
  tags: Map<string, Set<string>>;
  listening?: Promise<void> | undefined;
}

export class BusCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;
  /** The first watches `channel`, the others `alsoOn`. */
  private readonly watches: readonly Watch<V>[];
  private epoch = 0;
  private readonly bus: Bus;
  private readonly options: BusCacheOptions<V>;

  constructor(bus: Bus, options: BusCacheOptions<V>) {
    this.bus = bus;
    this.options = options;
    this.watches = [options, ...(options.alsoOn ?? [])].map((w) => ({
      channel: w.channel,
      tagOf: w.tagOf,
      tags: new Map(),
    }));
    bus.onReset(() => this.clear());
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entries' estimated bytes, at most `maxBytes`. */
  get bytes(): number {
    return this.held;
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Listens on the channels; a failure is thrown here and tried again (on that channel) by the next call. */
  async listen(): Promise<void> {
    await Promise.all(
      this.watches.map(
        (w) =>
          (w.listening ??= this.bus
            .listen(w.channel, (tag) => this.drop(w, tag))
            .then(
              () => undefined,
              (err: unknown) => {
                w.listening = undefined;
                throw err;
              },
            )),
      ),
    );
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

  /**
   * Drops the entries of a tag of `channel` (the main one by default) in this process at once (the
   * notification reaches the others at commit).
   */
  evict(tag: string, channel = this.options.channel): void {
    const watch = this.watches.find((w) => w.channel === channel);
    if (!watch) throw new Error(`this cache does not watch ${channel}`);
    this.drop(watch, tag);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.held = 0;
    for (const w of this.watches) w.tags.clear();
  }

  private drop(watch: Watch<V>, tag: string): void {
    this.epoch++;
    const keys = watch.tags.get(tag);
    if (!keys) return;
    for (const key of [...keys]) this.remove(key);
  }

  private set(key: string, value: V): void {
    const bytes = heapBytes(key) + heapBytes(value) + MAP_ENTRY + TAG_ENTRY * this.watches.length;
    if (bytes > this.options.maxBytes) return;
    this.remove(key);
    while (this.held + bytes > this.options.maxBytes) this.remove(this.entries.keys().next().value!);
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const w of this.watches) {
      const tag = w.tagOf(value);
      let keys = w.tags.get(tag);
      if (!keys) w.tags.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.held -= old.bytes;
    for (const w of this.watches) {
      const tag = w.tagOf(old.value);
      const keys = w.tags.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) w.tags.delete(tag);
    }
  }
}
