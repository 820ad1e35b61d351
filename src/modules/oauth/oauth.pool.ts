// A small pg pool of the module's own, on PostgreSQL only, for the statements that run as named prepared
// statements (Kysely cannot name them). Made by createOauth, ended by its stop.
import type pg from 'pg';
import type { Config } from '../../config.ts';
import { createPool } from '../../db/pg-pool.ts';

// Enough to keep two cores busy with the refresh statement; more only queued inside PostgreSQL (bench/).
const POOL_SIZE = 10;

// A prepared statement is planned with its values for five executions, then PostgreSQL may keep a generic
// plan for the connection's life. The rotation's was fixed while oauth_tokens was nearly empty: a sequential
// scan, which then read every row of the growing table on each batch (20 ms at 22,000 rows; token refresh
// fell from 2,300 to 1,300 per second). Each execution is planned with its values instead: 0.4 ms of
// planning per batch (parsing is still saved), and the primary key lookup at any size of the table.
const SETTINGS = { plan_cache_mode: 'force_custom_plan' };

export function hotPool(config: Config): pg.Pool | undefined {
  if (!config.databaseUrl) return undefined;
  return createPool(config.databaseUrl, { max: POOL_SIZE, allowExitOnIdle: true, settings: SETTINGS });
}
