// Retention: deliveries (their attempts go with them), then events (the outbox module's statement), then
// webhooks deleted before the period (the webhooks module's), in bounded batches so a purge never holds long
// locks or one huge transaction.
// Deliveries and attempts have no foreign keys (migration 0004): each delivery goes with its attempts in
// one statement, and before its event and webhook.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';
import { purgeEvents } from '../outbox/index.ts';
import { purgeDeletedWebhooks } from '../webhooks/index.ts';

const BATCH = 1000;

/** Deletes one batch of each; returns how many rows went, so the caller loops until 0. */
export async function purgeExpired(db: Executor, before: Date): Promise<number> {
  // Delivery ids begin with their creation time: the cut-off is a primary-key range. Pending ones go too,
  // a day later than the rest (a delivery's whole schedule takes about 28 hours; one still pending a
  // month on is stuck).
  const late = new Date(before.getTime() - 86_400_000);
  const deliveries = await deleteDeliveries(
    db,
    sql`select id from deliveries
        where id < ${idFloor('dlv', before)}::text and created_at < ${before}::timestamptz
          and (status <> 'pending' or created_at < ${late}::timestamptz)
        limit ${BATCH}::int`,
  );
  const ofDeletedWebhooks = await deleteDeliveries(
    db,
    sql`select d.id from webhooks w join deliveries d on d.webhook_id = w.id
        where w.deleted_at < ${before}::timestamptz
        limit ${BATCH}::int`,
  );
  // Events a day after their deliveries, whose purge is then complete: no index on deliveries.event_id needed.
  const events = await purgeEvents(db, late, BATCH);
  const webhooks = await purgeDeletedWebhooks(db, before, BATCH);
  return deliveries + ofDeletedWebhooks + events + webhooks;
}

async function deleteDeliveries(db: Executor, ids: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (delete from deliveries where id in (${ids}) returning id),
    attempts as (delete from delivery_attempts where delivery_id = any (array(select id from gone)))
    select count(*)::int as n from gone
  `.execute(db);
  return rows[0]!.n;
}
