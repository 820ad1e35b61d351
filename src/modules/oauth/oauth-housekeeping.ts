// Expired codes, tokens, consents, removed installations' tokens, app tokens and assertion ids are purged
// continuously in bounded batches, so the tables stay the size of what is live and one sweep never holds locks
// for long. Expiry alone already refuses them.
import type { Context } from '../../context.ts';
import { Loop, warnOnFailure } from '../../lib/loop.ts';
import { purgeExpired, purgeOrphanFamilies, purgeTombstones } from './housekeeping.repository.ts';

const SWEEP_EVERY_MS = 60_000;
const BATCH = 1000;
// A sweep stops after this many batches per table and resumes on the next tick.
const MAX_BATCHES = 50;

export async function sweepExpired(ctx: Context): Promise<number> {
  const now = new Date(ctx.clock.now());
  let total = 0;
  const tables = [
    'oauth_tokens',
    'oauth_codes',
    'oauth_consents',
    'oauth_retired_tokens',
    'oauth_app_tokens',
    'oauth_jtis',
  ] as const;
  for (const table of tables) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await purgeExpired(ctx.db, table, BATCH, now);
      total += n;
      if (n < BATCH) break;
    }
  }
  total += await purgeTombstones(ctx.db, BATCH, now);
  total += await purgeOrphanFamilies(ctx.db, BATCH, now);
  return total;
}

export function housekeeping(ctx: Context): Loop {
  return new Loop({
    name: 'oauth purge',
    everyMs: SWEEP_EVERY_MS,
    run: () => sweepExpired(ctx).then(() => undefined),
    onError: warnOnFailure(ctx.log),
  });
}
