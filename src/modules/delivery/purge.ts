// Retention as a background loop of the delivery module: every 10 minutes (the first run 5 s after start, so
// a starting process does its other work first), deliveries, events and deleted webhooks older than the
// retention period go, in bounded batches until none is left (purge-expired.repository.ts), and the counts of
// health (filtered events, deliveries) after two days.
import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import type { Background } from '../module.ts';
import { purgeHealthCounts } from '../webhooks/index.ts';
import { purgeExpired } from './purge-expired.repository.ts';

const PURGE_MS = 10 * 60_000;
const FIRST_PURGE_MS = 5000;
// health reads the last 24 hours of the counts (and the hour it began in): two days are kept.
const FILTERED_COUNTS_MS = 2 * 86_400_000;
const BATCH = 1000;

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
