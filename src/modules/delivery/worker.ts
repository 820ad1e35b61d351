// The delivery worker of one process. The deliveries table is the queue: the worker claims due deliveries
// in batches (claim-deliveries), sends each at once, and records the outcomes in batches (record-outcomes).
// It claims on the claim loop (src/lib/loop.ts), which runs:
// - on the delivery signal (in memory for ingestion here, NOTIFY for other processes: a new event is sent
//   within milliseconds, not at the next poll);
// - every second (other processes' expired leases, a lost notification);
// - when the earliest retry recorded by this worker falls due, and when a back-off from a lost database ends;
// - when an attempt ends while more work may be waiting.
// The steps, in the order a delivery meets them: claim (`claimRound`, `claimBatch`, `claim`), hold and start
// (holdings.ts: the per-webhook bound, the start deadline), send (`attempt`), record (`outcomes`, then
// `recorded`), and on stop give back what was not sent (`stop`).
// What it logs: an attempt that failed at the receiver is recorded with the delivery (and said at info by
// attempt.ts); a failure of the worker itself (a claim, a recording, an attempt that threw) is a warning
// with the error.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { drainMs } from '../../config.ts';
import type { Context } from '../../context.ts';
import { Batcher } from '../../lib/batcher.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import { Backoff, isConnectionLoss } from '../../db/connection-loss.ts';
import { preparedPool, type Prepared } from '../../db/prepared.ts';
import { createAgent, WriteDeadlineError } from '../webhooks/index.ts';
import type { Signal } from '../outbox/index.ts';
import { applyOutcomes, runAttempt, type AttemptResult, type Sending, type SigningKeys } from './attempt.ts';
import {
  claimDeliveries,
  type Claim,
  type ClaimedDelivery,
  type ClaimOptions,
} from './claim-deliveries.repository.ts';
import { claimPlainDeliveries } from './claim-plain-deliveries.repository.ts';
import { Holdings, START_LATE_MS } from './holdings.ts';
import { releaseLeases } from './release-leases.repository.ts';

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
// A claimed delivery is started only while its lease still covers a whole attempt and this margin; one that
// waited longer (a starved process, a stalled event loop) gives its lease back unsent, since another worker
// may claim it the moment the lease ends, and two attempts of one delivery must never run at once.
const START_MARGIN_MS = 1000;
// A paced endpoint's slots are given at most this far ahead: its deliveries wait in memory for their slot, and
// a lower pace (a 429) reaches the starts within this time.
const SLOT_HORIZON_MS = 1000;
// A claim asked for by a paced endpoint's next slot comes at least this long after the last one.
const MIN_PACED_WAKE_MS = 5;
// The plain claim and the recordings run prepared on two connections of the worker's own, one for the claim
// loop and one for the batcher, planned without bitmap scans either (decision 0225).
const PREPARED_POOL_SIZE = 2;
const PREPARED_SETTINGS = { enable_bitmapscan: 'off' };

/** What the worker uses of its module's state. */
export interface WorkerDeps {
  /** New deliveries, announced by this process (in memory) or another (NOTIFY). */
  readonly signal: Signal;
  readonly keys: SigningKeys;
}

export interface Worker {
  id: string;
  agent: Dispatcher;
  wake(): void;
  stop(): Promise<void>;
}

/** A lease outlives the longest possible attempt (the timeout) with a margin for recording its outcome. */
export function leaseMs(ctx: Context): number {
  return ctx.config.webhookTimeoutMs * 2 + 2000;
}

export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Whether, once `rows` are held too, some webhook holds its bound (so more of its work may be due). */
export function reachesBound(
  held: Readonly<Record<string, number>>,
  rows: readonly ClaimedDelivery[],
  bound: number,
): boolean {
  const taken = { ...held };
  for (const row of rows) taken[row.webhook_id] = (taken[row.webhook_id] ?? 0) + 1;
  return Object.values(taken).some((n) => n >= bound);
}

export async function startWorker(ctx: Context, deps: WorkerDeps): Promise<Worker> {
  const worker = new DeliveryWorker(ctx, deps.keys);
  const unlisten = await deps.signal.listen(worker.wake);
  ctx.bus.onReset(worker.wake);
  worker.start();
  return {
    id: worker.id,
    agent: worker.agent,
    wake: worker.wake,
    async stop() {
      unlisten();
      await worker.stop();
    },
  };
}

class DeliveryWorker {
  readonly id = workerId();
  readonly agent: Dispatcher;
  private readonly ctx: Context;
  private readonly sending: Sending;
  private readonly holdings: Holdings;
  private readonly claims: Loop;
  /** Where the plain claim and the recordings run: their pool (PostgreSQL only, ended by `stop`), else the database. */
  private readonly statements: Prepared;
  // Outcomes that arrive while a batch is being written wait for the next one: group commit, so the number
  // of statements follows the database's speed rather than the number of deliveries.
  private readonly outcomes: Batcher<AttemptResult, null>;
  // Leases given back unsent (held past their start, or a paced slot missed), the same way: one statement and
  // one line for those of a moment. An overloaded worker gave back hundreds a second, each its own warning.
  private readonly leasesBack: Batcher<{ id: string; late: boolean }, null>;
  // While the database is away, claims back off (250 ms doubling to 2 s: deliveries resume within 2 s of
  // its return) and the outage is logged once, not at every poll.
  private readonly outage = new Backoff(250, 2000);
  private stopping = false;
  /** Set by a stop that cut off the attempts still under way: theirs are given back, not recorded. */
  private cutOff = false;
  // Whether due work may be waiting for a free slot: the last claim filled its batch, or some webhook was at
  // its bound. Only then does an ended attempt trigger a claim; otherwise new work announces itself
  // (NOTIFY, in-memory wake) and every completion claiming too doubled the number of (mostly empty) claims.
  private mayHaveMore = false;
  private lastSkipScan = -Infinity;
  /**
   * Claim with the plain statement (no pace, no order) until a claim meets work only the full one may take,
   * then with the full one until a claim of it meets none (claim-deliveries.repository.ts).
   */
  private plain = true;

  constructor(ctx: Context, keys: SigningKeys) {
    this.ctx = ctx;
    this.agent = createAgent({
      timeoutMs: ctx.config.webhookTimeoutMs,
      allowPrivate: ctx.config.webhookAllowPrivate,
    });
    this.sending = { agent: this.agent, keys };
    this.statements = {
      db: ctx.db,
      pool: preparedPool(ctx.config.databaseUrl, PREPARED_POOL_SIZE, PREPARED_SETTINGS),
    };
    this.holdings = new Holdings(
      {
        now: () => ctx.clock.now(),
        attempt: (row) => this.attempt(row),
        giveBack: (row) => this.giveBack(row),
        missed: (row) => this.missed(row),
        ended: () => {
          if (this.mayHaveMore) this.wake();
        },
      },
      PER_WEBHOOK,
    );
    this.claims = new Loop({
      name: 'delivery claims',
      everyMs: POLL_MS,
      gapMs: CLAIM_SPACING_MS,
      runAtStart: true,
      run: () => this.claimRound(),
      onError: warnOnFailure(ctx.log),
    });
    this.outcomes = new Batcher<AttemptResult, null>({
      maxBatch: RECORD_BATCH,
      lingerMs: RECORD_DELAY_MS,
      write: async (batch) => {
        const released = await applyOutcomes(ctx, this.id, batch, this.statements);
        this.recorded(batch);
        // the next deliveries of their ordering keys are due now: claimed at once rather than at the next poll
        if (released > 0) this.wake();
        return batch.map(() => null);
      },
      // The attempts happened but are not recorded: their leases run out and they are sent again, which
      // at-least-once delivery allows and receivers deduplicate by webhook-id.
      onError: (err, size) =>
        ctx.log.warn({ err, worker: this.id, outcomes: size }, 'recording delivery outcomes failed'),
    });
    this.leasesBack = new Batcher({
      maxBatch: RECORD_BATCH,
      write: async (batch) => {
        const late = batch.filter((r) => r.late).length;
        if (late > 0) {
          ctx.log.warn(
            { worker: this.id, deliveries: late },
            'claimed deliveries not started in time: leases given back',
          );
        }
        const ids = batch.map((r) => r.id);
        await releaseLeases(ctx.db, this.id, ids, new Date(ctx.clock.now())).finally(this.wake);
        return batch.map(() => null);
      },
      onError: (err, size) =>
        ctx.log.warn({ err, worker: this.id, leases: size }, 'giving leases back failed'),
    });
  }

  readonly wake = (): void => this.claims.kick();

  start(): void {
    this.claims.start();
  }

  /** One run of the claim loop (never two at once): claims while batches come back full and slots are free. */
  private async claimRound(): Promise<void> {
    if (this.stopping || !this.outage.ready()) return;
    try {
      while (await this.claimBatch());
      if (this.outage.failing)
        this.ctx.log.info({ worker: this.id }, 'database back: claiming deliveries again');
      this.outage.succeeded();
    } catch (err) {
      const lost = isConnectionLoss(err);
      if (!lost || !this.outage.failing)
        this.ctx.log.warn({ err, worker: this.id }, 'claiming deliveries failed');
      if (lost) this.claims.runWithin(this.outage.failed());
    }
  }

  /** One claim, its rows held; whether it came back full with room for more. */
  private async claimBatch(): Promise<boolean> {
    const free = CAPACITY - this.holdings.size;
    if (free <= 0 || this.stopping) {
      this.mayHaveMore = true;
      return false;
    }
    const limit = Math.min(BATCH, free);
    // What is due, and where the leases start: the start deadline below counts from it.
    const claimedAt = this.ctx.clock.now();
    const startBy = claimedAt + leaseMs(this.ctx) - this.ctx.config.webhookTimeoutMs - START_MARGIN_MS;
    const horizonMs = Math.min(SLOT_HORIZON_MS, startBy - claimedAt - START_LATE_MS);
    const { rows, bounded, parked, wakeAt } = await this.claim(limit, new Date(claimedAt), horizonMs);
    if (this.stopping) {
      // a claim under way when the stop came gives its rows back rather than starting them
      await releaseLeases(
        this.ctx.db,
        this.id,
        rows.map((row) => row.id),
        new Date(this.ctx.clock.now()),
      );
      return false;
    }
    for (const row of rows) this.holdings.take(row, startBy);
    if (wakeAt !== null) this.claims.runWithin(Math.max(MIN_PACED_WAKE_MS, wakeAt - this.ctx.clock.now()));
    const full = rows.length >= limit;
    this.mayHaveMore = full || bounded;
    // Rows parked have left the due window: what was behind them may be claimable now.
    return full || parked > 0;
  }

  /** The claim statement, and whether some webhook reached its bound in it (so more of its work may be due). */
  private async claim(limit: number, now: Date, horizonMs: number): Promise<Claim & { bounded: boolean }> {
    const held = this.holdings.byWebhook();
    const options: ClaimOptions = {
      worker: this.id,
      now,
      limit,
      leaseMs: leaseMs(this.ctx),
      perWebhook: HOLD_PER_WEBHOOK,
      inFlight: held,
      skipSaturated: false,
      horizonMs,
    };
    const claim = await this.claimWith(options);
    const bounded = reachesBound(held, claim.rows, HOLD_PER_WEBHOOK);
    // Nothing claimable in the oldest due rows while some webhook is at its bound: they may all be that
    // webhook's backlog, hiding other webhooks' due work behind it. Look past it (rate-limited).
    if (
      claim.rows.length > 0 ||
      claim.parked > 0 ||
      !bounded ||
      performance.now() - this.lastSkipScan < SKIP_SCAN_MS
    )
      return { ...claim, bounded };
    this.lastSkipScan = performance.now();
    const past = await this.claimWith({ ...options, skipSaturated: true });
    return { ...past, wakeAt: past.wakeAt ?? claim.wakeAt, bounded: true };
  }

  /**
   * The plain claim or the full one, as the last claim found. A plain claim that met what it may not take
   * keeps its rows and asks for the next claim at once (a wake-up now), which is a full one.
   */
  private async claimWith(options: ClaimOptions): Promise<Claim> {
    const plain = this.plain;
    const claim = plain
      ? await claimPlainDeliveries(this.statements, options)
      : await claimDeliveries(this.ctx.db, options);
    this.plain = !claim.special;
    return plain && claim.special ? { ...claim, wakeAt: options.now.getTime() } : claim;
  }

  /** Sends one held delivery and hands its outcome to the recorder. */
  private async attempt(row: ClaimedDelivery): Promise<void> {
    try {
      const outcome = await runAttempt(this.ctx, this.sending, row);
      // An attempt the stop cut off heard no answer: not a failure of the receiver, so not recorded (nor
      // retried by the schedule); the stop gives its lease back and another worker sends it at once.
      if (this.cutOff && outcome.response_status === null) return;
      void this.outcomes.submit(outcome).catch(() => {}); // a failure is logged by the recorder's onError
    } catch (err) {
      if (err instanceof WriteDeadlineError) this.missed(row);
      else this.ctx.log.warn({ err, worker: this.id, delivery: row.id }, 'delivery attempt failed');
    }
  }

  /** After outcomes are recorded: a claim is due when the earliest of their retries is. */
  private recorded(batch: readonly AttemptResult[]): void {
    let next = Infinity;
    for (const o of batch) if (o.next_attempt_at) next = Math.min(next, Date.parse(o.next_attempt_at));
    if (next < Infinity) this.claims.runWithin(next - this.ctx.clock.now());
  }

  /** A held delivery whose lease no longer covers an attempt: its lease goes back unsent, then a claim. */
  private giveBack(row: ClaimedDelivery): void {
    void this.leasesBack.submit({ id: row.id, late: true }).catch(() => {}); // logged by onError
  }

  /** A paced delivery that missed its slot: its lease goes back unsent, and the next claim slots it again. */
  private missed(row: ClaimedDelivery): void {
    this.ctx.log.debug(
      { worker: this.id, delivery: row.id },
      'paced delivery missed its slot: lease given back',
    );
    void this.leasesBack.submit({ id: row.id, late: false }).catch(() => {});
  }

  /**
   * Claims nothing more; every queued delivery gives its lease back at once; the attempts under way finish
   * (each is bounded by the attempt timeout, and the wait by the shutdown grace, `drainMs`) and are recorded;
   * what is still running after that is cut off and gives its lease back too, to be sent again at once by
   * another worker (API.md 12.1, Shutdown).
   */
  async stop(): Promise<void> {
    const deadline = performance.now() + drainMs(this.ctx.config);
    this.stopping = true;
    const unsent = this.holdings.close();
    await this.claims.stop(); // waits for a claim under way, which gives its rows back
    await releaseLeases(this.ctx.db, this.id, unsent, new Date(this.ctx.clock.now())).catch(() => {});
    await settledWithin(
      this.holdings.attempts.values(),
      Math.min(this.ctx.config.webhookTimeoutMs, deadline - performance.now()),
    );
    const unfinished = [...this.holdings.attempts.keys()];
    this.cutOff = true;
    await this.agent.destroy().catch(() => {});
    await Promise.allSettled(this.holdings.attempts.values());
    await Promise.all([this.outcomes.drained(), this.leasesBack.drained()]);
    await releaseLeases(this.ctx.db, this.id, unfinished, new Date(this.ctx.clock.now())).catch(() => {});
    await this.statements.pool?.end().catch(() => {});
  }
}

/** Waits until every promise settled, or `ms` passed. */
async function settledWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(promises), cap]);
  clearTimeout(timer);
}
