// The sealer: chains committed audit entries, oldest first, under the one lock that only it takes
// (seal-entries.repository.ts), so that every writer, the token endpoint's hot path among them, only inserts
// (the entry, and its id in the queue). It runs as a background loop in every worker process (one of them
// holds the lock at a time; the others find it taken and wait for their next turn), polling rather than
// being woken: a wake-up would cost each writer a NOTIFY in its transaction, and a poll of the queue, a few
// seconds' worth of rows, costs one index probe. The entries of before the chain (queued by migration 0070)
// are sealed by the first runs, in the order they were written.
import type { Context } from '../../context.ts';
import { entryHash, GENESIS_HASH } from '../../lib/audit-chain.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import { iso } from '../../lib/time.ts';
import { pendingEntries, takeSealerLock, writeSeals, type Seal } from './seal-entries.repository.ts';

/**
 * Entries per transaction. A batch holds the embedded database (one connection) for its length: 56-218 ms
 * for 1,000 on PGlite here (median 100, load average 21); once the sealer keeps up, a poll finds only
 * what was written since the last one.
 */
const BATCH = 1_000;
/** How long an entry may wait for its seal while the sealer keeps up: the poll's period. */
const POLL_MS = 500;
/** Batches per run of the loop. */
const RUN_BATCHES = 10;
/** What a reader that asks for the chain as of now (an export, a checkpoint) seals itself before it reads. */
const CATCH_UP_BATCHES = 10;

/**
 * One batch of the queue after `after` (an id): how many entries it took and the last one, or undefined when
 * another process held the lock.
 */
export async function sealBatch(
  ctx: Context,
  wait: boolean,
  after: string,
): Promise<{ taken: number; last: string } | undefined> {
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await takeSealerLock(trx, wait))) return undefined;
    const pending = await pendingEntries(trx, after, BATCH);
    if (pending.length === 0) return { taken: 0, last: after };
    const tips = new Map<string, { sequence: number; hash: string }>();
    const seals: Seal[] = [];
    for (const e of pending) {
      if (e.id === null) continue;
      const chain = `${e.merchant_id} ${e.mode}`;
      const tip = tips.get(chain) ?? { sequence: e.tip_sequence ?? 0, hash: e.tip_hash ?? GENESIS_HASH };
      const sequence = tip.sequence + 1;
      const hash = entryHash(tip.hash, { ...e, id: e.id, created_at: iso(e.created_at), sequence });
      tips.set(chain, { sequence, hash });
      seals.push({
        merchantId: e.merchant_id,
        mode: e.mode,
        sequence,
        logId: e.id,
        hash,
        prevHash: tip.hash,
      });
    }
    await writeSeals(
      trx,
      seals,
      pending.map((e) => e.log_id),
    );
    return { taken: pending.length, last: pending.at(-1)!.log_id };
  });
}

/**
 * Seals until nothing is queued after `after`, or for at most `maxBatches` batches; `more` (and where to
 * resume) when it stopped at that bound. Each batch starts after the last one's entries: their queue rows
 * are deleted but stay in the queue's index until vacuum, and a scan from the start would step over all of
 * them again, batch after batch, through a backlog. An entry queued behind the resume point (its transaction
 * committed late) is taken by the next pass from the start. Without `wait`, it leaves the work to the
 * process that holds the lock.
 */
export async function sealPending(
  ctx: Context,
  options: { wait: boolean; maxBatches: number; after?: string },
): Promise<{ sealed: number; more: boolean; last: string }> {
  let sealed = 0;
  let last = options.after ?? '';
  for (let batches = 0; batches < options.maxBatches; batches++) {
    const batch = await sealBatch(ctx, options.wait, last);
    if (batch === undefined) return { sealed, more: false, last };
    sealed += batch.taken;
    last = batch.last;
    if (batch.taken < BATCH) return { sealed, more: false, last };
  }
  return { sealed, more: true, last };
}

export interface Sealer {
  readonly loop: Loop;
  /**
   * Seals what was committed before the call (up to CATCH_UP_BATCHES batches; a larger backlog is left to
   * the loop), waiting for another process's batch if need be: for a reader of the chain as of now.
   */
  catchUp(): Promise<void>;
}

export function createSealer(ctx: Context): Sealer {
  // Where the next run resumes a backlog: in this process's memory only, as any pass from the start is right.
  let resume = '';
  const loop: Loop = new Loop({
    name: 'audit sealer',
    everyMs: POLL_MS,
    runAtStart: true,
    // A backlog (the entries of before the chain, or a long stop) is sealed RUN_BATCHES at a time, each run
    // asking for the next at once, so that a stop waits for one run rather than for the whole backlog.
    run: async () => {
      const run = await sealPending(ctx, { wait: false, maxBatches: RUN_BATCHES, after: resume });
      resume = run.more ? run.last : '';
      if (run.more) loop.kick();
    },
    onError: warnOnFailure(ctx.log),
  });
  return {
    loop,
    catchUp: async () => {
      await sealPending(ctx, { wait: true, maxBatches: CATCH_UP_BATCHES });
    },
  };
}
