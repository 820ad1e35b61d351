// A small pg pool of the module's own, on PostgreSQL only, for the statements that run as named prepared
// statements (Kysely cannot name them). Made by createOauth, ended by its stop.
import type pg from 'pg';
import type { Config } from '../../config.ts';
import { createPool } from '../../db/pg-pool.ts';

// Enough to keep two cores busy with the refresh statement; more only queued inside PostgreSQL (bench/).
const POOL_SIZE = 10;

export function hotPool(config: Config): pg.Pool | undefined {
  if (!config.databaseUrl) return undefined;
  return createPool(config.databaseUrl, { max: POOL_SIZE, allowExitOnIdle: true });
}
