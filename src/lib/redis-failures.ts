// Failure budgets kept in Redis (SVC_REDIS_URL), for every process that shares it: a hash per key (its
// failures, last failure and end of wait, epoch ms of the service clock) that expires once forgotten. Each
// step is one Lua script, atomic in Redis. While Redis cannot be reached, the budgets fall back to the store
// given (PostgreSQL): a failure is never uncounted for want of Redis, and the counts of the outage stay there
// (docs/decisions/0161-sign-in-budgets-shared.md). Without an offline queue and with a 250 ms command timeout,
// as the public rate limits' client (src/http/rate-limiter.ts): a sign-in must not wait on a lost Redis.
import { Redis } from 'ioredis';
import type { FailureStore } from './failure-limiter.ts';

const COUNT = `
local now = tonumber(ARGV[1])
local forget = tonumber(ARGV[2])
local f = redis.call('HMGET', KEYS[1], 'n', 'last', 'until')
local n = tonumber(f[1]) or 0
local untl = tonumber(f[3]) or 0
if now - (tonumber(f[2]) or 0) >= forget and now >= untl then n = 0; untl = 0 end
n = n + 1
redis.call('HSET', KEYS[1], 'n', n, 'last', now, 'until', untl)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return n
`;

const EXTEND = `
local u = tonumber(redis.call('HGET', KEYS[1], 'until')) or 0
if tonumber(ARGV[1]) > u then redis.call('HSET', KEYS[1], 'until', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

const CONNECT_TIMEOUT_MS = 1000;

type Scripts = Redis & {
  svcCountFailure(key: string, now: number, forgetMs: number, ttlMs: number): Promise<number>;
  svcExtendWait(key: string, until: number, ttlMs: number): Promise<number>;
};

export interface RedisFailures {
  /**
   * Settles once the first connection is up, or after the connect timeout: a process that answered sign-ins
   * while still connecting would count them in the fallback, apart from the other processes' (a seventh wrong
   * code let through 73 ms after the sixth by a process just restarted).
   */
  connected(): Promise<void>;
  /** The store of one budget (`prefix`): Redis, else `fallback` while Redis fails. */
  store(prefix: string, keepMs: number, fallback: FailureStore): FailureStore;
  close(): Promise<void>;
}

export function redisFailures(url: string, onFallback: (err: unknown) => void): RedisFailures {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  }) as Scripts;
  redis.defineCommand('svcCountFailure', { numberOfKeys: 1, lua: COUNT });
  redis.defineCommand('svcExtendWait', { numberOfKeys: 1, lua: EXTEND });
  redis.on('error', () => {}); // each command that fails falls back, and says so once
  const connected = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  let failing = false;
  const attempt = async <T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> => {
    try {
      const value = await shared();
      failing = false;
      return value;
    } catch (err) {
      if (!failing) onFallback(err);
      failing = true;
      return local();
    }
  };
  return {
    connected: () => connected,
    store: (prefix, keepMs, fallback) => {
      const at = (key: string) => `svc:sign-in:${prefix}:${key}`;
      return {
        read: (key) =>
          attempt(
            async () => {
              const [last, until] = await redis.hmget(at(key), 'last', 'until');
              return last === null
                ? undefined
                : { lastFailure: Number(last), blockedUntil: Number(until ?? 0) };
            },
            () => fallback.read(key),
          ),
        count: (key, now, forgetMs) =>
          attempt(
            () => redis.svcCountFailure(at(key), now, forgetMs, keepMs),
            () => fallback.count(key, now, forgetMs),
          ),
        extend: (key, until) =>
          attempt(
            async () => void (await redis.svcExtendWait(at(key), until, keepMs)),
            () => fallback.extend(key, until),
          ),
        forget: (key) =>
          attempt(
            async () => void (await redis.del(at(key))),
            () => fallback.forget(key),
          ),
      };
    },
    close: async () => {
      redis.disconnect();
    },
  };
}
