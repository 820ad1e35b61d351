// Retention as a background loop of the retention module: every 10 minutes (the first run 5 s after start, so
// a starting process does its other work first), deliveries, events and deleted webhooks older than the
// retention period go, in bounded batches until none is left (purgeExpired), and the counts of health
// (filtered events, deliveries) after two days. Each batch is its owner's statement: deliveries with their attempts (the delivery
// module's), then events (the outbox module's), then webhooks deleted before the period (the webhooks
// module's); this module decides the times and the order.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Background } from '../module.ts';
import { purgeDeliveries } from '../delivery/index.ts';
import { purgeEvents } from '../outbox/index.ts';
import { purgeDeletedWebhooks, purgeHealthCounts } from '../webhooks/index.ts';

const PURGE_MS = 10 * 60_000;
const FIRST_PURGE_MS = 5000;
// health reads the last 24 hours of the counts (and the hour it began in): two days are kept.
const FILTERED_COUNTS_MS = 2 * 86_400_000;
const BATCH = 1000;

/** Deletes one batch of each; returns how many rows went, so the caller loops until 0. */
export async function purgeExpired(db: Executor, before: Date): Promise<number> {
  // Pending deliveries go too, a day later than the rest (a delivery's whole schedule takes about 28 hours;
  // one still pending a month on is stuck).
  const late = new Date(before.getTime() - 86_400_000);
  const deliveries = await purgeDeliveries(db, before, late, BATCH);
  // Events a day after their deliveries, whose purge is then complete: no index on deliveries.event_id needed.
  const events = await purgeEvents(db, late, BATCH);
  const webhooks = await purgeDeletedWebhooks(db, before, BATCH);
  return deliveries + events + webhooks;
}

export function purgeLoop(ctx: Context): Background {
  let stopping = false;
  const loop = new Loop({
    name: 'delivery purge',
    everyMs: PURGE_MS,
    run: async () => {
      const before = new Date(ctx.clock.now() - ctx.config.webhookRetentionDays * 86_400_000);
      // a stop waits for the batch in progress only, not for the rest of a long backlog
      while (!stopping && (await purgeExpired(ctx.db, before)) > 0);
      const counted = new Date(ctx.clock.now() - FILTERED_COUNTS_MS);
      while (!stopping && (await purgeHealthCounts(ctx.db, counted, BATCH)) > 0);
    },
    onError: warnOnFailure(ctx.log),
  });
  return {
    name: loop.name,
    start() {
      stopping = false;
      loop.start();
      loop.runWithin(FIRST_PURGE_MS);
    },
    async stop() {
      stopping = true;
      await loop.stop();
    },
  };
}
