// Replays as a background loop of the replays module, on every process that runs the loops: each run
// advances the running replays a batch at a time (replays.repository.ts) until none is left that another
// process does not hold, and wakes the delivery workers after each batch that queued deliveries. A replay's
// state is its row, so a restarted or killed process leaves nothing behind: the next run anywhere continues it.
import type { Context } from '../../context.ts';
import { idFloor } from '../../lib/ids.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Signal } from '../outbox/index.ts';
import type { Background } from '../module.ts';
import { advanceReplay } from './replays.repository.ts';

// 1,000 rows a statement: about 60 ms on PostgreSQL here, so one process queues well over the contract's
// 1,000 deliveries a second, in transactions short enough that a cancel (which waits for the row) is prompt.
export const REPLAY_BATCH = 1000;
// A replay made by another process starts within this; one made here at once (`kick`).
const REPLAY_POLL_MS = 1000;

export interface ReplayLoop extends Background {
  /** A replay was made in this process: run now. */
  kick(): void;
}

/** Advances the running replays by one batch; undefined when there was none to advance. */
export async function advanceOnce(ctx: Context, batch = REPLAY_BATCH) {
  const now = ctx.clock.now();
  // the prefix of this batch's delivery ids: the time part of a delivery id made now
  return advanceReplay(ctx.db, idFloor('dlv', new Date(now)), batch, new Date(now));
}

export function replayLoop(ctx: Context, signal: Signal): ReplayLoop {
  let stopping = false;
  const loop = new Loop({
    name: 'webhook replays',
    everyMs: REPLAY_POLL_MS,
    run: async () => {
      // a stop waits for the batch in progress only
      while (!stopping) {
        const step = await advanceOnce(ctx);
        if (!step) return;
        if (step.queued > 0) signal.raise();
      }
    },
    onError: warnOnFailure(ctx.log),
  });
  return {
    name: loop.name,
    kick: () => loop.kick(),
    start() {
      stopping = false;
      loop.start();
    },
    async stop() {
      stopping = true;
      await loop.stop();
    },
  };
}
