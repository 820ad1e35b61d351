// GET /readyz: whether this process can serve now. Three cheap checks: the pool hands out a connection
// within 2 s, the database accepts writes (not a standby after a failover, not read-only: a transaction
// id is assigned and rolled back, which writes nothing to any table), and the LISTEN connection that
// carries cache invalidation is up (without it a revoked key could keep working here).
import { sql } from 'kysely';
import type { Context } from '../context.ts';

const CHECK_TIMEOUT_MS = 2000;

class Rollback extends Error {}

async function acceptsWrites(ctx: Context): Promise<boolean> {
  let writable = false;
  await ctx.db
    .transaction()
    .execute(async (tx) => {
      const { rows } = await sql<{ recovery: boolean; read_only: boolean }>`
        select pg_is_in_recovery() as recovery,
               current_setting('transaction_read_only') = 'on' as read_only,
               txid_current() as xid
      `.execute(tx);
      writable = rows[0]?.recovery === false && rows[0]?.read_only === false;
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  return writable;
}

export async function isReady(ctx: Context): Promise<boolean> {
  if (!ctx.bus.listening()) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([acceptsWrites(ctx).catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
