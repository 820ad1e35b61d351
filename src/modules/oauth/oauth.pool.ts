// A small pg pool of the module's own, on PostgreSQL only, for the statements that run as named prepared
// statements (Kysely cannot name them). Closed with the app.
import type pg from 'pg';
import type { Context } from '../../context.ts';
import { createPool } from '../../db/pg-pool.ts';

// Enough to keep two cores busy with the refresh statement; more only queued inside PostgreSQL (bench/).
const POOL_SIZE = 10;
const pools = new WeakMap<Context, pg.Pool>();

export function hotPool(ctx: Context): pg.Pool | undefined {
  if (!ctx.config.databaseUrl) return undefined;
  let pool = pools.get(ctx);
  if (!pool) {
    pool = createPool(ctx.config.databaseUrl, { max: POOL_SIZE, allowExitOnIdle: true });
    pools.set(ctx, pool);
  }
  return pool;
}

export async function closeHotPool(ctx: Context): Promise<void> {
  const pool = pools.get(ctx);
  pools.delete(ctx);
  await pool?.end();
}
