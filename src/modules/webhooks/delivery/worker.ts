// The delivery worker of one process. The deliveries table is the queue: the worker claims due deliveries
// in batches (claim-deliveries), sends each at once, and records the outcomes in batches (record-outcomes).
// It wakes on the delivery signal (in memory for ingestion here, NOTIFY for other processes: a new event is
// sent within milliseconds, not at the next poll), on a 1 s poll (retries that fall due, other processes'
// expired leases, a lost notification), and when a send finishes while work may be waiting.
// What it logs: an attempt that failed at the receiver is recorded with the delivery (and said at info by
// attempt.ts); a failure of the worker itself (a claim, a recording, an attempt that threw) is a warning
// with the error.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import type { Context } from '../../../context.ts';
import { Batcher } from '../../../lib/batcher.ts';
import { Loop, warnOnFailure } from '../../../lib/loop.ts';
import { createAgent } from '../sender.ts';
import type { Signal } from '../signal.ts';
import { applyOutcomes, runAttempt, type AttemptResult, type Sending, type SigningKeys } from './attempt.ts';
import { claimDeliveries, type ClaimedDelivery } from './claim-deliveries.repository.ts';
import { releaseLeases } from './release-leases.repository.ts';
import { Backoff, isConnectionLoss } from '../../../db/connection-loss.ts';

// At most 32 attempts in flight per webhook in one process: an endpoint that answers in 15 s then holds 32
// slots while the other 224 keep flowing to everyone else. 8 was the first choice, but it capped a single
// busy webhook at 210 deliveries/s here against 540/s unbounded (and 435/s for the 32-connection baseline
// sender); 32 matches the baseline's concurrency.
export const PER_WEBHOOK = 32;
// Each webhook may also hold as many claimed deliveries queued in memory, started the moment a send of
// the same webhook finishes, with no database round trip in between: sends no longer wait for the next
// claim, which had held a single webhook's drain at ~1,060/s against ~3,100/s for the baseline here. The
// lease (2 x timeout + 2 s) covers a queued delivery: it waits at most one round of 32 sends.
const HOLD_PER_WEBHOOK = 2 * PER_WEBHOOK;
// A claim that skips saturated webhooks walks their whole backlog: at most one per 100 ms.
const SKIP_SCAN_MS = 100;
const CAPACITY = 256;
const BATCH = 100;
const POLL_MS = 1000;
const RECORD_BATCH = 500;
// Outcomes wait up to 5 ms to be recorded together, and claims that follow one another are 2 ms apart: in a
// drain of 3,000 deliveries that took recorded batches from ~10 rows to 16-30. Neither delays a send when
// the worker is idle. (Dropping the spacing for newly announced work made latency worse under load, not
// better: p50 ~60 ms became ~1.5 s in back-to-back runs, as claims of one or two rows crowded the database.)
const RECORD_DELAY_MS = 5;
const CLAIM_SPACING_MS = 2;

/** What the worker uses of its module's state. */
export interface WorkerDeps {
  /** New deliveries, announced by this process (in memory) or another (NOTIFY). */
  readonly signal: Signal;
  readonly keys: SigningKeys;
}

export interface Worker {
  id: string;
  agent: Agent;
  wake(): void;
  stop(): Promise<void>;
}

/** A lease outlives the longest possible attempt (the timeout) with a margin for recording its outcome. */
export function leaseMs(ctx: Context): number {
  return ctx.config.webhookTimeoutMs * 2 + 2000;
}

// A claimed delivery is started only while its lease still covers a whole attempt and this margin; one that
// waited longer (a starved process, a stalled event loop) gives its lease back unsent, since another worker
// may claim it the moment the lease ends, and two attempts of one delivery must never run at once.
const START_MARGIN_MS = 1000;

export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export async function startWorker(ctx: Context, deps: WorkerDeps): Promise<Worker> {
  const id = workerId();
  const agent = createAgent({
    timeoutMs: ctx.config.webhookTimeoutMs,
    allowPrivate: ctx.config.webhookAllowPrivate,
  });
  const sending: Sending = { agent, keys: deps.keys };
  const held = new Map<string, number>(); // claimed and not yet finished (sending or queued), by webhook
  const inFlight = new Map<string, number>();
  const queued = new Map<string, ClaimedDelivery[]>();
  const startBy = new Map<string, number>(); // by delivery: the last moment its lease lets it start
  const active = new Map<string, Promise<void>>();
  let total = 0;
  let stopping = false;
  // Whether due work may be waiting for a free slot: the last claim filled its batch, or some webhook was at
  // its bound. Only then does a finished attempt trigger a claim; otherwise new work announces itself
  // (NOTIFY, in-memory wake) and every completion claiming too doubled the number of (mostly empty) claims.
  let mayHaveMore = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryAt = Infinity;
  let lastClaimEnd = 0;
  // While the database is away, claims back off (250 ms doubling to 2 s: deliveries resume within 2 s of
  // its return) and the outage is logged once, not at every poll.
  const outage = new Backoff(250, 2000);

  // Outcomes that arrive while a batch is being written wait for the next one: group commit, so the number
  // of statements follows the database's speed rather than the number of deliveries.
  const outcomes = new Batcher<AttemptResult, null>({
    maxBatch: RECORD_BATCH,
    lingerMs: RECORD_DELAY_MS,
    write: async (batch) => {
      await applyOutcomes(ctx, id, batch);
      for (const o of batch) if (o.next_attempt_at) scheduleWake(Date.parse(o.next_attempt_at));
      return batch.map(() => null);
    },
    // The attempts happened but are not recorded: their leases run out and they are sent again, which
    // at-least-once delivery allows and receivers deduplicate by webhook-id.
    onError: (err, size) =>
      ctx.log.warn({ err, worker: id, outcomes: size }, 'recording delivery outcomes failed'),
  });

  const claims = new Loop({
    name: 'delivery claims',
    everyMs: POLL_MS,
    runAtStart: true,
    run: claimRound,
    onError: warnOnFailure(ctx.log),
  });
  const wake = () => claims.kick();

  function scheduleWake(at: number): void {
    if (stopping || at >= retryAt) return;
    clearTimeout(retryTimer);
    retryAt = at;
    retryTimer = setTimeout(
      () => {
        retryAt = Infinity;
        wake();
      },
      Math.max(0, at - Date.now()),
    );
    retryTimer.unref();
  }

  const bump = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n === 0) map.delete(key);
    else map.set(key, n);
  };

  /** `claimedAt`: local time before the claim was sent, no later than the lease's start in the database. */
  function take(row: ClaimedDelivery, claimedAt: number): void {
    // Claimed again after its lease ran out while this worker still had it (a stall longer than the lease):
    // the attempt under way here stays the only one, and records its outcome under the new lease.
    if (active.has(row.id) || startBy.has(row.id)) return;
    total++;
    bump(held, row.webhook_id, 1);
    startBy.set(row.id, claimedAt + leaseMs(ctx) - ctx.config.webhookTimeoutMs - START_MARGIN_MS);
    if ((inFlight.get(row.webhook_id) ?? 0) < PER_WEBHOOK) start(row);
    else {
      const queue = queued.get(row.webhook_id);
      if (queue) queue.push(row);
      else queued.set(row.webhook_id, [row]);
    }
  }

  /** The webhook's next queued delivery that may still start, if any. */
  function startNext(webhookId: string): void {
    const queue = queued.get(webhookId);
    while (queue && queue.length > 0 && !stopping) if (start(queue.shift()!)) break;
    if (queue?.length === 0) queued.delete(webhookId);
  }

  /** Starts the attempt, or gives the lease back if it no longer covers one (false). */
  function start(row: ClaimedDelivery): boolean {
    const deadline = startBy.get(row.id) ?? Infinity;
    startBy.delete(row.id);
    if (Date.now() > deadline) {
      total--;
      bump(held, row.webhook_id, -1);
      ctx.log.warn(
        { worker: id, delivery: row.id },
        'claimed delivery not started in time: lease given back',
      );
      void releaseLeases(ctx.db, id, [row.id])
        .catch((err: unknown) => ctx.log.warn({ err, worker: id }, 'giving a lease back failed'))
        .finally(wake);
      return false;
    }
    bump(inFlight, row.webhook_id, 1);
    const run = runAttempt(ctx, sending, row)
      .then(
        (outcome) => void outcomes.submit(outcome).catch(() => {}), // a failure is logged by onError
        (err: unknown) => {
          ctx.log.warn({ err, worker: id, delivery: row.id }, 'delivery attempt failed');
        },
      )
      .finally(() => {
        total--;
        bump(held, row.webhook_id, -1);
        bump(inFlight, row.webhook_id, -1);
        active.delete(row.id);
        startNext(row.webhook_id);
        if (mayHaveMore) wake();
      });
    active.set(row.id, run);
    return true;
  }

  let lastSkipScan = 0;

  /** A claim, and whether some webhook reached its bound in it (so more of its work may be due). */
  async function claim(limit: number): Promise<{ rows: ClaimedDelivery[]; bounded: boolean }> {
    const snapshot = Object.fromEntries(held);
    const options = {
      worker: id,
      limit,
      leaseMs: leaseMs(ctx),
      perWebhook: HOLD_PER_WEBHOOK,
      inFlight: snapshot,
      skipSaturated: false,
    };
    const bounded = (rows: ClaimedDelivery[]) => {
      const taken = { ...snapshot };
      for (const row of rows) taken[row.webhook_id] = (taken[row.webhook_id] ?? 0) + 1;
      return Object.values(taken).some((n) => n >= HOLD_PER_WEBHOOK);
    };
    const rows = await claimDeliveries(ctx.db, options);
    // Nothing claimable in the oldest due rows while some webhook is at its bound: they may all be that
    // webhook's backlog, hiding other webhooks' due work behind it. Look past it (rate-limited).
    if (rows.length > 0 || !bounded(rows) || Date.now() - lastSkipScan < SKIP_SCAN_MS)
      return { rows, bounded: bounded(rows) };
    lastSkipScan = Date.now();
    const past = await claimDeliveries(ctx.db, { ...options, skipSaturated: true });
    return { rows: past, bounded: true };
  }

  /** Claims while batches come back full and slots are free. */
  async function claimAll(): Promise<void> {
    for (;;) {
      const free = CAPACITY - total;
      if (free <= 0 || stopping) {
        mayHaveMore = true;
        return;
      }
      const limit = Math.min(BATCH, free);
      const claimedAt = Date.now();
      const { rows, bounded } = await claim(limit);
      if (stopping) {
        // a claim under way when the stop came gives its rows back rather than starting them
        await releaseLeases(
          ctx.db,
          id,
          rows.map((row) => row.id),
        );
        return;
      }
      for (const row of rows) take(row, claimedAt);
      const full = rows.length === limit;
      mayHaveMore = full || bounded;
      if (!full) return;
    }
  }

  /** One run of the claim loop (never two at once: a wake mid-run asks for one more right after it). */
  async function claimRound(): Promise<void> {
    if (stopping || !outage.ready()) return;
    const spacing = lastClaimEnd + CLAIM_SPACING_MS - Date.now();
    if (spacing > 0) await new Promise((resolve) => setTimeout(resolve, spacing));
    try {
      await claimAll();
      if (outage.failing) ctx.log.info({ worker: id }, 'database back: claiming deliveries again');
      outage.succeeded();
    } catch (err) {
      if (!isConnectionLoss(err) || !outage.failing)
        ctx.log.warn({ err, worker: id }, 'claiming deliveries failed');
      if (isConnectionLoss(err)) scheduleWake(Date.now() + outage.failed());
    } finally {
      lastClaimEnd = Date.now();
    }
  }

  const unlisten = await deps.signal.listen(wake);
  ctx.bus.onReset(wake);
  claims.start();

  return {
    id,
    agent,
    wake,
    async stop() {
      stopping = true;
      unlisten();
      clearTimeout(retryTimer);
      await claims.stop(); // waits for a claim under way, which gives its rows back
      // In-flight sends finish (each is bounded by the attempt timeout, capped here so a stop stays prompt);
      // what is still running after that gives its lease back and is sent again by another worker.
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.min(ctx.config.webhookTimeoutMs, 10_000));
      });
      // Queued claims are never started once stopped: their leases are given back below.
      const unsent = [...queued.values()].flat().map((row) => row.id);
      queued.clear();
      startBy.clear();
      await Promise.race([Promise.allSettled([...active.values()]), cap]);
      clearTimeout(timer);
      const unfinished = [...unsent, ...active.keys()];
      await agent.destroy().catch(() => {});
      await Promise.allSettled([...active.values()]);
      await outcomes.drained();
      await releaseLeases(ctx.db, id, unfinished).catch(() => {});
    },
  };
}
