// The replays module: replays by filter (API.md section 12.2, docs/decisions/0146-replays-behind-live-deliveries.md),
// one room from the route to the loop: preview, start, progress and cancel (routes, schemas, service), the
// replay's row and the walk that advances it (replays.repository.ts), and the loop that advances the running
// replays on every process that runs the loops (replay-loop.ts). It owns webhook_replays. It reads the
// deliveries and events a replay walks and the webhook it sends to in its batch statement, and writes the
// deliveries it queues through the delivery module's step (`queueReplayed`), so the batch stays one round trip.
// It sits above delivery and below dev-loop (docs/decisions/0200-replays-as-a-room.md).
import type { Context } from '../../context.ts';
import type { Signal } from '../outbox/index.ts';
import type { Module } from '../module.ts';
import { replayLoop } from './replay-loop.ts';
import { replayRoutes } from './replays.routes.ts';

export { advanceOnce as advanceReplays, REPLAY_BATCH } from './replay-loop.ts';

export interface ReplaysDeps {
  /** The outbox's wake-up of the delivery workers: a batch queued deliveries. */
  readonly signal: Signal;
}

export function createReplays(ctx: Context, deps: ReplaysDeps): Module {
  const loop = replayLoop(ctx, deps.signal);
  // a replay made in this process runs at once; other processes find it within a second
  return { name: 'replays', merchantRoutes: replayRoutes(() => loop.kick()), background: [loop] };
}
