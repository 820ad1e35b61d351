// A small pg pool of the module's own, on PostgreSQL only, for the statements that run as named prepared
// statements (Kysely cannot name them). Made by createOauthToken, ended by its stop.
import type pg from 'pg';
import type { Config } from '../../config.ts';
import { createPool } from '../../db/pg-pool.ts';

// Enough to keep two cores busy with the refresh statement; more only queued inside PostgreSQL (bench/).
const POOL_SIZE = 10;

// Each statement is planned once per connection, generically: planning each batch with its values cost 0.28 ms
// of PostgreSQL per batch, a fifth of a refresh's PostgreSQL time, and as much again replanning the foreign-key
// checks of its inserts, which the setting also governs (bench/, --profile). A generic plan is made from the
// tables' size at that moment, and one made while oauth_tokens was nearly empty once kept a sequential scan
// for the connection's life, reading every row of the growing table on each batch (20 ms at 22,000 rows; token
// refresh fell from 2,300 to 1,300 per second). So:
// - this pool plans without sequential scans, hash joins or merge joins: each batch's rows are looked up by
//   key, which is the right plan at any size once a table is past a few pages;
// - a connection is replaced after MAX_USES statements, and its plans with it: a plan made while a table was
//   a page or two (where a whole-index scan can still look cheapest) lasts a few seconds under load. Opening a
//   connection costs about 2 ms here: under 0.01 ms per batch.
// test/oauth/hot-pool.test.ts checks the plans.
const SETTINGS = {
  plan_cache_mode: 'force_generic_plan',
  enable_seqscan: 'off',
  enable_hashjoin: 'off',
  enable_mergejoin: 'off',
};
export const MAX_USES = 500;

export function hotPool(config: Config): pg.Pool | undefined {
  if (!config.databaseUrl) return undefined;
  return createPool(config.databaseUrl, {
    max: POOL_SIZE,
    allowExitOnIdle: true,
    settings: SETTINGS,
    maxUses: MAX_USES,
  });
}
