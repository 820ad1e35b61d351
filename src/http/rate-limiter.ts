// Rate limits of the public API (API.md section 10): one token bucket per credential owner and mode, refilled
// at the mode's rate (SVC_RATE_LIMIT_LIVE / _TEST per second) and holding SVC_RATE_LIMIT_BURST seconds of it.
// In memory per process by default. With SVC_REDIS_URL the bucket lives in Redis and every process draws from
// it, but not per request: a process takes a lease of about 100 ms of the rate in one round trip and spends it
// locally, topping it up in the background when half is gone. A round trip per request cost the public read
// about 30% here; leases cost a round trip per tenth of a second per busy owner. The price is accuracy: a
// process may hold up to one lease unspent (under-serving by at most a lease per process), and spends a lease
// for up to a second after taking it (see docs/decisions/0086-public-rate-limits-shared-by-redis-leases.md). A process waits for Redis before its first
// request; if Redis cannot be reached the limits fall back to this process's buckets until it is back; that is
// logged and counted (svc_rate_limit_fallbacks_total).
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Metrics } from '../lib/metrics.ts';
import type { Clock } from '../lib/time.ts';

export interface Decision {
  allowed: boolean;
  /** Whole requests left in the bucket (approximate when shared). */
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset: number;
  /** Seconds until one request is allowed again (for Retry-After). */
  retryAfter: number;
}

export interface Policy {
  /** Requests per second. */
  rate: number;
  /** Bucket size: requests that may be made at once. */
  capacity: number;
}

interface LocalBucket {
  tokens: number;
  at: number;
}

// Past this many owners, idle buckets are dropped (a full bucket is the same as no bucket).
const MAX_BUCKETS = 50_000;
const LEASE_MS = 1000;
const REDIS_TIMEOUT_MS = 250;
// A process waits this long at start for its first connection to Redis: the connect timeout (1 s) and the
// first retry (200 ms later). Unwaited, the connection was ready 50-80 ms after the server listened here (more
// under load), and until then the process answered from a full bucket of its own, unlogged.
const START_WAIT_MS = 2000;
// After a command that failed on a connection still up (a timeout while Redis or this process stalled), the
// shared buckets are tried again this much later: no 'ready' event comes to bring them back.
const RETRY_SHARED_MS = 1000;

function settle(policy: Policy, tokens: number, allowed: boolean): Decision {
  const remaining = Math.max(0, Math.floor(tokens));
  return {
    allowed,
    remaining,
    reset: Math.ceil((policy.capacity - tokens) / policy.rate),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / policy.rate)),
  };
}

/** Token buckets of this process alone. */
export class LocalBuckets {
  private readonly buckets = new Map<string, LocalBucket>();
  private readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  take(key: string, policy: Policy): Decision {
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.sweep(now, policy);
      bucket = { tokens: policy.capacity, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(policy.capacity, bucket.tokens + ((now - bucket.at) * policy.rate) / 1000);
      bucket.at = now;
    }
    if (bucket.tokens < 1) return settle(policy, bucket.tokens, false);
    bucket.tokens -= 1;
    return settle(policy, bucket.tokens, true);
  }

  private sweep(now: number, policy: Policy): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) * policy.rate) / 1000 >= policy.capacity) this.buckets.delete(key);
    }
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }
}

// The shared bucket, refilled by elapsed Redis time and drawn down by a whole lease at once. Returns what was
// granted and what is left (as text: Lua numbers become integers on the way out).
const TAKE = `
local rate = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 't', 'n')
local n = tonumber(b[2])
local last = tonumber(b[1])
if n == nil then n = cap; last = now end
n = math.min(cap, n + math.max(0, now - last) * rate / 1000)
local got = math.min(want, math.floor(n))
n = n - got
redis.call('HSET', KEYS[1], 't', now, 'n', tostring(n))
redis.call('PEXPIRE', KEYS[1], math.ceil(cap / rate * 1000) + 1000)
return {got, tostring(n)}
`;

interface Lease {
  tokens: number;
  expires: number;
  /** What the shared bucket held after the last lease: for the headers. */
  left: number;
  deniedUntil: number;
  pending: Promise<void> | undefined;
}

type RedisWithTake = Redis & {
  svcTake(key: string, rate: number, capacity: number, want: number): Promise<[number, string]>;
};

/** Buckets shared through Redis, spent locally by leases; falls back to `local` while Redis is away. */
export class SharedBuckets {
  private readonly leases = new Map<string, Lease>();
  private readonly redis: RedisWithTake;
  private shared = false; // until the connection is ready
  /** A fallback was logged: its end is logged too. */
  private fellBack = false;
  private closed = false;
  private readonly local: LocalBuckets;
  private readonly metrics: Metrics;
  private readonly log: () => FastifyBaseLogger;
  private readonly clock: Clock;

  constructor(
    url: string,
    local: LocalBuckets,
    metrics: Metrics,
    clock: Clock,
    log: () => FastifyBaseLogger,
  ) {
    this.local = local;
    this.metrics = metrics;
    this.clock = clock;
    this.log = log;
    this.redis = new Redis(url, {
      // Fail at once while disconnected rather than queueing: a request must not wait for Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_TIMEOUT_MS,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
      lazyConnect: false,
    }) as RedisWithTake;
    this.redis.defineCommand('svcTake', { numberOfKeys: 1, lua: TAKE });
    this.redis.on('error', () => this.fallBack('connection error'));
    this.redis.on('close', () => this.fallBack('connection closed'));
    this.redis.on('ready', () => this.share());
    this.metrics.rateLimitShared.set(0);
  }

  /**
   * Resolves once the first connection is ready, so that the process answers its first request from the
   * shared buckets; or after START_WAIT_MS, the fallback logged and counted as any loss of Redis is.
   */
  async ready(): Promise<void> {
    if (this.shared) return;
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), START_WAIT_MS);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!connected && !this.shared) this.noteFallback('not reachable at start');
  }

  private share(): void {
    if (this.closed) return;
    if (this.fellBack) this.log().info('rate limits shared through Redis again');
    this.fellBack = false;
    this.shared = true;
    this.metrics.rateLimitShared.set(1);
  }

  private fallBack(why: string): void {
    if (!this.shared) return;
    this.shared = false;
    this.leases.clear();
    this.metrics.rateLimitShared.set(0);
    this.noteFallback(why);
    if (this.redis.status === 'ready') {
      setTimeout(() => {
        if (!this.shared && this.redis.status === 'ready') this.share();
      }, RETRY_SHARED_MS).unref();
    }
  }

  private noteFallback(why: string): void {
    this.fellBack = true;
    this.metrics.rateLimitFallbacks.inc();
    this.log().warn({ reason: why }, 'Redis unreachable: rate limits fall back to this process alone');
  }

  take(key: string, policy: Policy): Decision | Promise<Decision> {
    if (!this.shared) return this.local.take(key, policy);
    const now = this.clock.now();
    let lease = this.leases.get(key);
    if (!lease) {
      if (this.leases.size >= MAX_BUCKETS) this.leases.clear();
      lease = { tokens: 0, expires: 0, left: policy.capacity, deniedUntil: 0, pending: undefined };
      this.leases.set(key, lease);
    }
    if (lease.expires <= now) lease.tokens = 0;
    const size = leaseSize(policy);
    if (lease.tokens >= 1) {
      lease.tokens -= 1;
      if (lease.tokens < size / 2) void this.refill(key, lease, policy);
      return settle(policy, lease.tokens + lease.left, true);
    }
    if (lease.deniedUntil > now) return settle(policy, lease.left, false);
    return this.wait(key, lease, policy, 3);
  }

  /**
   * Waits for a lease. Requests that arrive together share one round trip; those it did not cover (the
   * lease was smaller than the crowd) ask again while the shared bucket still grants something.
   */
  private async wait(key: string, lease: Lease, policy: Policy, tries: number): Promise<Decision> {
    await this.refill(key, lease, policy);
    if (!this.shared) return this.local.take(key, policy);
    if (lease.tokens >= 1) {
      lease.tokens -= 1;
      return settle(policy, lease.tokens + lease.left, true);
    }
    if (lease.deniedUntil <= this.clock.now() && tries > 1) return this.wait(key, lease, policy, tries - 1);
    return settle(policy, lease.left, false);
  }

  private refill(key: string, lease: Lease, policy: Policy): Promise<void> {
    lease.pending ??= this.redis
      .svcTake(`svc:rl:${key}`, policy.rate, policy.capacity, leaseSize(policy))
      .then(
        ([got, left]) => {
          const now = this.clock.now();
          lease.tokens = (lease.expires > now ? lease.tokens : 0) + got;
          lease.expires = now + LEASE_MS;
          lease.left = Number(left);
          lease.deniedUntil = got === 0 ? now + ((1 - lease.left) / policy.rate) * 1000 : 0;
        },
        () => this.fallBack('command failed'),
      )
      .finally(() => {
        lease.pending = undefined;
      });
    return lease.pending;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.shared = false;
    this.redis.disconnect();
  }
}

/** About 100 ms of the rate, at least one request, and no more than a quarter of the bucket. */
function leaseSize(policy: Policy): number {
  return Math.max(1, Math.min(Math.ceil(policy.rate / 10), Math.floor(policy.capacity / 4)));
}

export interface RateLimiter {
  take(key: string, policy: Policy): Decision | Promise<Decision>;
  /** Before the first request: the shared buckets' first connection (SharedBuckets.ready). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createRateLimiter(
  config: Config,
  metrics: Metrics,
  clock: Clock,
  log: () => FastifyBaseLogger,
): RateLimiter {
  const local = new LocalBuckets(clock);
  if (config.redisUrl) return new SharedBuckets(config.redisUrl, local, metrics, clock, log);
  return { take: (key, policy) => local.take(key, policy), ready: async () => {}, close: async () => {} };
}
