// Retention: deliveries (their attempts go with them), then events no delivery needs, then webhooks deleted
// before the period, in bounded batches so a purge never holds long locks or one huge transaction.
// Deliveries have no foreign keys (migration 0004), so they go first, explicitly.
import { sql } from 'kysely';
import type { Executor } from '../../../db/database.ts';
import { idFloor } from '../../../lib/ids.ts';

const BATCH = 1000;

/** Deletes one batch of each; returns how many rows went, so the caller loops until 0. */
export async function purgeExpired(db: Executor, before: Date): Promise<number> {
  // Delivery ids begin with their creation time: the cut-off is a primary-key range.
  const deliveries = await sql`
    delete from deliveries where id in (
      select id from deliveries
      where id < ${idFloor('dlv', before)}::text and created_at < ${before}::timestamptz and status <> 'pending'
      limit ${BATCH}::int
    )
  `.execute(db);
  const ofDeletedWebhooks = await sql`
    delete from deliveries where id in (
      select d.id from webhooks w join deliveries d on d.webhook_id = w.id
      where w.deleted_at < ${before}::timestamptz
      limit ${BATCH}::int
    )
  `.execute(db);
  const events = await sql`
    delete from events where id in (
      select e.id from events e
      where e.created_at < ${before}::timestamptz
        and not exists (select 1 from deliveries d where d.event_id = e.id)
      limit ${BATCH}::int
    )
  `.execute(db);
  const webhooks = await sql`
    delete from webhooks where id in (
      select w.id from webhooks w
      where w.deleted_at < ${before}::timestamptz
        and not exists (select 1 from deliveries d where d.webhook_id = w.id)
      limit ${BATCH}::int
    )
  `.execute(db);
  return [deliveries, ofDeletedWebhooks, events, webhooks].reduce(
    (n, r) => n + Number(r.numAffectedRows ?? 0),
    0,
  );
}
