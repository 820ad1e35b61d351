// Failure budgets with exponential back-off: in memory, per process (`createFailureLimiter`, the OAuth client
// authentication's), or shared (`FailureBudget`: the sign-in budgets, in PostgreSQL or Redis). Only failures are recorded: a key earns
// its waits from its own failed attempts, and what the caller refuses while a key waits is not recorded, so a
// user retrying after a 429 does not lengthen the wait. A key with no failure for `forgetMs` starts afresh.
// Waits are measured on the service's clock, which a test moves instead of waiting them out.
import type { Clock } from './time.ts';

export interface FailurePolicy {
  /** Failures allowed before any wait. */
  free: number;
  /** The wait after the first failure past `free`; each further failure doubles it. */
  baseMs: number;
  maxMs: number;
  /** A key with no failure for this long is forgotten. */
  forgetMs: number;
}

export interface FailureLimiter {
  /** Milliseconds until the key may try again; 0 when it may now. */
  waitMs(key: string): number;
  /** Records a failure; returns the wait it starts (0 while within the free failures). */
  fail(key: string): number;
  /** Forgets the key (a success proved the attempts were the owner's). */
  reset(key: string): void;
}

/**
 * A failure budget shared by every process (the sign-in budgets, API.md 11.3): the same rules as
 * `FailureLimiter`, kept in PostgreSQL or Redis, so each call is a round trip.
 */
export interface FailureBudget {
  waitMs(key: string): Promise<number>;
  fail(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

/** Where a shared budget keeps its keys: PostgreSQL or Redis, each call atomic on its own. */
export interface FailureStore {
  /** The key's last failure and the end of its wait (epoch ms), if it has failures. */
  read(key: string): Promise<{ lastFailure: number; blockedUntil: number } | undefined>;
  /** Counts a failure at `now`, starting afresh when the key was forgotten; the key's failures, this one too. */
  count(key: string, now: number, forgetMs: number): Promise<number>;
  /** The key waits until `until` at least (a later wait set meanwhile stays). */
  extend(key: string, until: number): Promise<void>;
  forget(key: string): Promise<void>;
}

/** A budget of `policy` over a store that every process shares: the rules of `createFailureLimiter`. */
export function sharedBudget(store: FailureStore, policy: FailurePolicy, clock: Clock): FailureBudget {
  return {
    async waitMs(key) {
      const at = clock.now();
      const entry = await store.read(key);
      if (!entry || (at - entry.lastFailure >= policy.forgetMs && at >= entry.blockedUntil)) return 0;
      return Math.max(0, entry.blockedUntil - at);
    },
    async fail(key) {
      const at = clock.now();
      const wait = waitAfter(policy, await store.count(key, at, policy.forgetMs));
      if (wait > 0) await store.extend(key, at + wait);
      return wait;
    },
    reset: (key) => store.forget(key),
  };
}

/** The wait that a key's `failures`-th failure starts: none within the free ones, then doubling to the cap. */
export function waitAfter(policy: FailurePolicy, failures: number): number {
  const over = failures - policy.free;
  // 2^30 already exceeds any sensible cap; the bound keeps the arithmetic finite.
  return over > 0 ? Math.min(policy.baseMs * 2 ** Math.min(over - 1, 30), policy.maxMs) : 0;
}

interface Entry {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

// 100,000 keys of about 150 bytes each: 15 MB at most. Past it the oldest key is dropped: flooding the
// table takes failures from many keys, which the per-address budgets already slow down.
const MAX_KEYS = 100_000;

export function createFailureLimiter(
  policy: FailurePolicy,
  clock: Clock,
  options: { maxKeys?: number } = {},
): FailureLimiter {
  const maxKeys = options.maxKeys ?? MAX_KEYS;
  const now = () => clock.now();
  const entries = new Map<string, Entry>();

  function live(key: string, at: number): Entry | undefined {
    const entry = entries.get(key);
    if (entry && at - entry.lastFailure >= policy.forgetMs && at >= entry.blockedUntil) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    waitMs(key) {
      const at = now();
      const entry = live(key, at);
      return entry ? Math.max(0, entry.blockedUntil - at) : 0;
    },
    fail(key) {
      const at = now();
      const entry = live(key, at) ?? { failures: 0, lastFailure: at, blockedUntil: 0 };
      entry.failures++;
      entry.lastFailure = at;
      const wait = waitAfter(policy, entry.failures);
      if (wait > 0) entry.blockedUntil = Math.max(entry.blockedUntil, at + wait);
      // Delete then set: the Map keeps insertion order, so the first key is the least recently failed.
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > maxKeys) entries.delete(entries.keys().next().value!);
      return Math.max(0, entry.blockedUntil - at);
    },
    reset(key) {
      entries.delete(key);
    },
  };
}

/** Whole seconds for Retry-After, never 0 (a 0 invites an immediate retry that would be refused). */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
