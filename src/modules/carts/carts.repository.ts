import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { CartsTable } from './carts.table.ts';

export type CartRow = Selectable<CartsTable>;

export async function insertCart(db: Executor, row: Insertable<CartsTable>): Promise<CartRow> {
  return db.insertInto('carts').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Marks up to `limit` idle active carts abandoned and returns them. SKIP LOCKED lets several sweepers share
 * the work without waiting on each other, and the `status = 'active'` re-check on the locked row (PostgreSQL
 * re-evaluates it after a concurrent commit) means a cart is returned by exactly one of them.
 */
export async function abandonIdleCarts(
  trx: Executor,
  idleSince: Date,
  now: Date,
  limit: number,
): Promise<CartRow[]> {
  const result = await sql<CartRow>`
    update carts as c set status = 'abandoned', updated_at = ${now}
    from (
      select id from carts
      where status = 'active' and updated_at < ${idleSince}
      order by updated_at
      limit ${limit}
      for update skip locked
    ) as due
    where c.id = due.id and c.status = 'active'
    returning c.*`.execute(trx);
  return result.rows;
}
