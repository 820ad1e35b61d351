// Prometheus metrics of one service (one Registry per service, so two apps in a test process count apart).
// Every label set a hot path uses is bound once, here or on first use, and kept: `labels(...)` hashes its
// arguments on every call, and the public read path's whole budget is a few microseconds per request.
// docs/operations.md lists every metric with its labels and example alerts.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { HttpMetrics } from './http-metrics.ts';

export type AttemptOutcome = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'ssrf_refused';
export type AuthFailure = 'unauthenticated' | 'invalid' | 'mode' | 'scope' | 'browser';
export type CredentialCacheKind = 'secret_key' | 'publishable_key' | 'access_token';

/** What a scrape reads from the database: the delivery queue as it is now. */
export interface QueueDepth {
  due: number;
  scheduled: number;
  leased: number;
  /** Seconds since the oldest due, unleased delivery fell due; 0 when none is due. */
  oldestDueSeconds: number;
}

export interface PoolStats {
  size: number;
  inUse: number;
  waiting: number;
}

export const REPLICA_STATES = ['up', 'lagging', 'down'] as const;

/** A read replica as /readyz and the metrics show it (src/db/replicas.ts). */
export interface ReplicaStatus {
  readonly name: string;
  /** up: serves reads; lagging: answers, but replays more than the allowed lag behind; down: does not answer. */
  readonly state: (typeof REPLICA_STATES)[number];
  /** Replay lag at the last probe; null while unknown (down, or behind with no replayed commit to time it by). */
  readonly lagMs: number | null;
}

/** Where one lag-tolerant read went, and why the primary when it did. */
export interface ReplicaReads {
  replica: Counter.Internal;
  sticky: Counter.Internal;
  noFreshReplica: Counter.Internal;
  replicaFailed: Counter.Internal;
}

// Queue depth is read at most once per 5 s whatever the number of scrapers: a scrape every 15 s costs one
// query over the pending rows (the partial index), never over the delivery history.
const QUEUE_CACHE_MS = 5000;

export interface BatchMetrics {
  size: Histogram.Internal<string>;
  failures: Counter.Internal;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly http = new HttpMetrics(this.registry);

  private readonly cache = new Counter({
    name: 'svc_credential_cache_total',
    help: 'Credential verifications by cache result (hit: no database read).',
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });
  readonly cacheHit: Record<CredentialCacheKind, Counter.Internal>;
  readonly cacheMiss: Record<CredentialCacheKind, Counter.Internal>;

  private readonly authFailures = new Counter({
    name: 'svc_auth_failures_total',
    help: 'Public API requests refused before the route, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly tokenGrants = new Counter({
    name: 'svc_oauth_token_grants_total',
    help: 'OAuth token endpoint answers, by grant type and outcome (issued, or the OAuth error code).',
    labelNames: ['grant_type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly refreshReuse = new Counter({
    name: 'svc_oauth_refresh_reuse_total',
    help: 'Rotated refresh tokens presented again: the family was revoked.',
    registers: [this.registry],
  });
  readonly codeReuse = new Counter({
    name: 'svc_oauth_code_reuse_total',
    help: 'Authorization codes presented a second time: the tokens issued from them were revoked.',
    registers: [this.registry],
  });

  private readonly eventsByType = new Map<string, Counter.Internal>();
  private readonly eventsIngested = new Counter({
    name: 'svc_events_ingested_total',
    help: 'Events recorded, by type (duplicates of an already recorded event are not counted).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly deliveriesEnqueued = new Counter({
    name: 'svc_deliveries_enqueued_total',
    help: 'Deliveries created (one per subscribed webhook per event, resends and recoveries included).',
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'svc_delivery_attempts_total',
    help: 'Delivery attempts made, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly attempt: Record<AttemptOutcome, Counter.Internal>;
  readonly attemptDuration = new Histogram({
    name: 'svc_delivery_attempt_duration_seconds',
    help: 'Duration of one delivery attempt, connect to answer read.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly firstAttemptLatency = new Histogram({
    name: 'svc_delivery_first_attempt_latency_seconds',
    help: 'From the event being recorded to the start of the first attempt of each of its deliveries.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly autoDisabled = new Counter({
    name: 'svc_webhooks_auto_disabled_total',
    help: 'Webhooks disabled by the delivery engine, by reason (gone: answered 410; failing: 5 days of failures).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly listenResets = new Counter({
    name: 'svc_db_listen_resets_total',
    help: 'Times the LISTEN connection was lost and re-established (caches were dropped).',
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'svc_rate_limited_total',
    help: 'Public API requests refused with 429, by mode.',
    labelNames: ['mode'] as const,
    registers: [this.registry],
  });
  readonly rateLimitFallbacks = new Counter({
    name: 'svc_rate_limit_fallbacks_total',
    help: 'Times the shared (Redis) rate limiter became unreachable and limits fell back to this process.',
    registers: [this.registry],
  });
  readonly rateLimitShared = new Gauge({
    name: 'svc_rate_limit_shared',
    help: '1 while rate limits are shared through Redis, 0 while this process limits alone.',
    registers: [this.registry],
  });

  private readonly batchSizes = new Histogram({
    name: 'svc_batch_size',
    help: 'Items per batched write, by batcher (count: statements sent; sum: items written).',
    labelNames: ['batch'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [this.registry],
  });
  private readonly batchFailures = new Counter({
    name: 'svc_batch_failures_total',
    help: 'Batched writes that failed, by batcher: every item of the batch failed with it.',
    labelNames: ['batch'] as const,
    registers: [this.registry],
  });

  private readonly requestLogEntries = new Counter({
    name: 'svc_request_log_entries_total',
    help: 'Request log entries by outcome: written, or dropped (buffer_full: the writer was behind and its buffer full; write_failed: their batch failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly requestLog = {
    written: this.requestLogEntries.labels('written'),
    bufferFull: this.requestLogEntries.labels('buffer_full'),
    writeFailed: this.requestLogEntries.labels('write_failed'),
  };

  private readonly lagTolerantReads = new Counter({
    name: 'svc_db_lag_tolerant_reads_total',
    help: 'Reads that tolerate lag (API.md 12.1) by where they went: replica, or primary (reason: sticky, no_fresh_replica, replica_failed).',
    labelNames: ['served_by', 'reason'] as const,
    registers: [this.registry],
  });

  /** The counters of the lag-tolerant reads, bound when replicas are configured (so none show without them). */
  replicaReads(): ReplicaReads {
    const c = this.lagTolerantReads;
    return {
      replica: c.labels('replica', 'fresh'),
      sticky: c.labels('primary', 'sticky'),
      noFreshReplica: c.labels('primary', 'no_fresh_replica'),
      replicaFailed: c.labels('primary', 'replica_failed'),
    };
  }

  /** The bound metrics of one batcher (src/lib/batcher.ts), for its owner to keep. */
  batch(name: string): BatchMetrics {
    return { size: this.batchSizes.labels(name), failures: this.batchFailures.labels(name) };
  }

  private queueProbe: (() => Promise<QueueDepth>) | undefined;
  private queueRead: { at: number; value: Promise<QueueDepth> } | undefined;
  private poolProbe: (() => PoolStats | undefined) | undefined;
  private replicaProbe: (() => readonly ReplicaStatus[]) | undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.cacheHit = {
      secret_key: this.cache.labels('secret_key', 'hit'),
      publishable_key: this.cache.labels('publishable_key', 'hit'),
      access_token: this.cache.labels('access_token', 'hit'),
    };
    this.cacheMiss = {
      secret_key: this.cache.labels('secret_key', 'miss'),
      publishable_key: this.cache.labels('publishable_key', 'miss'),
      access_token: this.cache.labels('access_token', 'miss'),
    };
    this.attempt = {
      '2xx': this.attempts.labels('2xx'),
      '3xx': this.attempts.labels('3xx'),
      '4xx': this.attempts.labels('4xx'),
      '5xx': this.attempts.labels('5xx'),
      timeout: this.attempts.labels('timeout'),
      network: this.attempts.labels('network'),
      ssrf_refused: this.attempts.labels('ssrf_refused'),
    };
    this.authFailure = {
      unauthenticated: this.authFailures.labels('unauthenticated'),
      invalid: this.authFailures.labels('invalid'),
      mode: this.authFailures.labels('mode'),
      scope: this.authFailures.labels('scope'),
      browser: this.authFailures.labels('browser'),
    };
    const registry = this.registry;
    const read = () => this.readQueue();
    new Gauge({
      name: 'svc_delivery_queue_depth',
      help: 'Pending deliveries now: due (waiting for a worker), scheduled (a retry later), leased (being sent).',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        const q = await read();
        if (!q) return;
        this.labels('due').set(q.due);
        this.labels('scheduled').set(q.scheduled);
        this.labels('leased').set(q.leased);
      },
    });
    new Gauge({
      name: 'svc_delivery_oldest_due_age_seconds',
      help: 'How long the oldest due, unleased delivery has waited for a worker (0: none waits).',
      registers: [registry],
      async collect() {
        const q = await read();
        if (q) this.set(q.oldestDueSeconds);
      },
    });
    const pool = () => this.poolProbe?.();
    const poolGauge = (name: string, help: string, pick: (s: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          const stats = pool();
          if (stats) this.set(pick(stats));
        },
      });
    poolGauge('svc_db_pool_size', 'Database connections open in the pool.', (s) => s.size);
    poolGauge('svc_db_pool_in_use', 'Database connections lent out.', (s) => s.inUse);
    poolGauge('svc_db_pool_waiting', 'Queries waiting for a free database connection.', (s) => s.waiting);
    this.replicaGauges();
  }

  // Each replica's state (1 for the state it is in, 0 for the others) and replay lag, as of its last probe.
  private replicaGauges(): void {
    const replicas = () => this.replicaProbe?.() ?? [];
    new Gauge({
      name: 'svc_db_replica_state',
      help: 'Each read replica: 1 for its state now (up, lagging, down), 0 for the others.',
      labelNames: ['replica', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const r of replicas())
          for (const state of REPLICA_STATES) this.labels(r.name, state).set(r.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: 'svc_db_replica_lag_seconds',
      help: 'Each read replica: its replay lag at the last probe (NaN while unknown).',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const r of replicas()) this.labels(r.name).set(r.lagMs === null ? NaN : r.lagMs / 1000);
      },
    });
  }

  readonly authFailure: Record<AuthFailure, Counter.Internal>;

  /** The delivery queue's reader (the delivery module); read on scrape, cached for 5 s. */
  setQueueProbe(probe: () => Promise<QueueDepth>): void {
    this.queueProbe = probe;
  }

  setPoolProbe(probe: () => PoolStats | undefined): void {
    this.poolProbe = probe;
  }

  setReplicaProbe(probe: () => readonly ReplicaStatus[]): void {
    this.replicaProbe = probe;
  }

  private async readQueue(): Promise<QueueDepth | undefined> {
    if (!this.queueProbe) return undefined;
    const now = performance.now(); // an interval of this process's, not a time of day
    if (!this.queueRead || now - this.queueRead.at > QUEUE_CACHE_MS) {
      this.queueRead = { at: now, value: this.queueProbe() };
    }
    try {
      return await this.queueRead.value;
    } catch {
      this.queueRead = undefined; // a failed read is not cached; the gauge keeps its last value
      return undefined;
    }
  }

  /** Counts one answer. `route` is the route's pattern (`/api/public/v1/carts/:id`), never the raw URL. */
  observeHttp(route: string, method: string, status: number, seconds: number): void {
    this.http.observe(route, method, status, seconds);
  }

  /** An event recorded (not a duplicate) and the deliveries it made. */
  countEvent(type: string, deliveries: number): void {
    let child = this.eventsByType.get(type);
    if (!child) this.eventsByType.set(type, (child = this.eventsIngested.labels(type)));
    child.inc();
    if (deliveries > 0) this.deliveriesEnqueued.inc(deliveries);
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The class of a delivery attempt from its HTTP status or the sender's error text (`code: message`). */
export function attemptOutcome(status: number | null, error: string | null): AttemptOutcome {
  if (status !== null) {
    if (status >= 500) return '5xx';
    if (status >= 400) return '4xx';
    if (status >= 300) return '3xx';
    return '2xx';
  }
  if (error?.startsWith('blocked_address')) return 'ssrf_refused';
  if (error?.startsWith('timeout')) return 'timeout';
  return 'network';
}
