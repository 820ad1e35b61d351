// The sign-in budgets' Redis store (src/lib/redis-failures.ts) as a process starts: `connected` settles once the
// connection is up, and every failure counted after it is counted in Redis, none in the fallback. Without the
// wait, a process just started answered its first sign-ins while still connecting, counted them in PostgreSQL
// apart from the other processes', and let a seventh wrong code through 73 ms after the sixth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisFailures } from '../../src/lib/redis-failures.ts';
import type { FailureStore } from '../../src/lib/failure-limiter.ts';
import { haveRedis, startRedis, type RedisServer } from '../support/redis.ts';

/** A fallback that counts what reaches it. */
function counting() {
  const hits: string[] = [];
  const store: FailureStore = {
    read: async (key) => void hits.push(`read ${key}`),
    count: async (key) => (hits.push(`count ${key}`), 1),
    extend: async (key) => void hits.push(`extend ${key}`),
    forget: async (key) => void hits.push(`forget ${key}`),
  };
  return { hits, store };
}

describe.skipIf(!haveRedis())('the Redis store of the sign-in budgets', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.stop());

  it('counts in Redis from the moment it is connected, none in the fallback', async () => {
    const fallbacks: unknown[] = [];
    const shared = redisFailures(redis.url, (err) => fallbacks.push(err));
    try {
      await shared.connected();
      const local = counting();
      const store = shared.store('account', 60_000, local.store);
      const now = Date.now();
      expect(await store.count('k', now, 60_000)).toBe(1);
      expect(await store.count('k', now + 1, 60_000)).toBe(2);
      expect((await store.read('k'))?.lastFailure).toBe(now + 1);
      expect(local.hits).toEqual([]);
      expect(fallbacks).toEqual([]);
    } finally {
      await shared.close();
    }
  });

  it('settles within the connect timeout when Redis is not there, and falls back', async () => {
    const fallbacks: unknown[] = [];
    const shared = redisFailures('redis://127.0.0.1:9', (err) => fallbacks.push(err));
    try {
      const t0 = performance.now();
      await shared.connected();
      expect(performance.now() - t0).toBeLessThan(3000);
      const local = counting();
      expect(await shared.store('account', 60_000, local.store).count('k', Date.now(), 60_000)).toBe(1);
      expect(local.hits).toEqual(['count k']);
      expect(fallbacks).toHaveLength(1);
    } finally {
      await shared.close();
    }
  });
});
