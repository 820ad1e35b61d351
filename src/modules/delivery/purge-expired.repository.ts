// Retention of deliveries (the retention module decides when and in what order, src/modules/retention/purge.ts):
// in bounded batches so a purge never holds long locks or one huge transaction.
// Deliveries and attempts have no foreign keys (migration 0004): each delivery goes with its attempts in
// one statement, and before its event and webhook.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';

/**
 * Deletes one batch of the deliveries made before `before` (the pending ones only before `late`), and one of
 * those of webhooks deleted before `before`, each with its attempts; returns how many deliveries went.
 */
export async function purgeDeliveries(
  db: Executor,
  before: Date,
  late: Date,
  batch: number,
): Promise<number> {
  // Delivery ids begin with their creation time: the cut-off is a primary-key range.
  const deliveries = await deleteDeliveries(
    db,
    sql`select id from deliveries
        where id < ${idFloor('dlv', before)}::text and created_at < ${before}::timestamptz
          and (status <> 'pending' or created_at < ${late}::timestamptz)
        limit ${batch}::int`,
  );
  const ofDeletedWebhooks = await deleteDeliveries(
    db,
    sql`select d.id from webhooks w join deliveries d on d.webhook_id = w.id
        where w.deleted_at < ${before}::timestamptz
        limit ${batch}::int`,
  );
  return deliveries + ofDeletedWebhooks;
}

async function deleteDeliveries(db: Executor, ids: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (delete from deliveries where id in (${ids}) returning id),
    attempts as (delete from delivery_attempts where delivery_id = any (array(select id from gone)))
    select count(*)::int as n from gone
  `.execute(db);
  return rows[0]!.n;
}
