// The request log's days: partitions made ahead (today and the next two, so that a batch rarely meets a
// missing day), and days dropped whole once every entry in them is older than the retention period
// (SVC_REQUEST_LOG_RETENTION_DAYS). Each process runs it hourly; making or dropping a day twice is harmless.
import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import { dayOf } from './request-entry.ts';
import { dropDay, makePartitions, partitionDays } from './record.repository.ts';

const DAY_MS = 86_400_000;
const AHEAD_DAYS = 2;
const EVERY_MS = 3_600_000;

/** Makes the coming days and drops the expired ones, at `ctx.clock`'s time; answers the days dropped. */
export async function keepDays(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  await makePartitions(
    ctx.db,
    Array.from({ length: AHEAD_DAYS + 1 }, (_, i) => dayOf(now + i * DAY_MS)),
  );
  const cutoff = now - ctx.config.requestLogRetentionDays * DAY_MS;
  const expired = (await partitionDays(ctx.db)).filter(
    (day) => Date.parse(`${day}T00:00:00Z`) + DAY_MS <= cutoff,
  );
  for (const day of expired) await dropDay(ctx.db, day);
  return expired;
}

export function retentionLoop(ctx: Context): Loop {
  return new Loop({
    name: 'request log retention',
    everyMs: EVERY_MS,
    runAtStart: true,
    run: async () => {
      const dropped = await keepDays(ctx);
      if (dropped.length > 0) ctx.log.info({ days: dropped }, 'request log days past retention dropped');
    },
    onError: warnOnFailure(ctx.log),
  });
}
