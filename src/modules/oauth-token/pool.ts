// A small pool of the module's own, on PostgreSQL only, where the token endpoint's batches run as named
// prepared statements planned generically (src/db/prepared.ts). Made by createOauthToken, ended by its stop.
import type pg from 'pg';
import type { Config } from '../../config.ts';
import { preparedPool } from '../../db/prepared.ts';

// Enough to keep two cores busy with the refresh statement; more only queued inside PostgreSQL (bench/).
const POOL_SIZE = 10;

// Planning each batch with its values cost 0.28 ms of PostgreSQL per batch, a fifth of a refresh's PostgreSQL
// time, and as much again replanning the foreign-key checks of its inserts, which the generic plan also covers
// (bench/, --profile). A generic plan that kept a sequential scan read every row of the growing oauth_tokens on
// each batch (20 ms at 22,000 rows; refresh fell from 2,300 to 1,300 a second): besides sequential scans, this
// pool plans without hash or merge joins, so each batch's rows are looked up by key, the right plan at any
// size once a table is past a few pages. test/oauth/hot-pool.test.ts checks the plans.
const SETTINGS = { enable_hashjoin: 'off', enable_mergejoin: 'off' };

export function hotPool(config: Config): pg.Pool | undefined {
  return preparedPool(config.databaseUrl, POOL_SIZE, SETTINGS);
}
