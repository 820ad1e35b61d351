// Retention: deliveries (their attempts go with them) and events older than the retention period are
// deleted in bounded batches, so a purge never holds long locks or one huge transaction.
import { sql } from 'kysely';
import type { Executor } from '../../../db/database.ts';

const BATCH = 1000;

/** Deletes one batch of each; returns how many rows went, so the caller loops until 0. */
export async function purgeExpired(db: Executor, before: Date): Promise<number> {
  const deliveries = await sql`
    delete from deliveries where id in (
      select id from deliveries where created_at < ${before}::timestamptz and status <> 'pending' limit ${BATCH}::int
    )
  `.execute(db);
  const events = await sql`
    delete from events where id in (
      select e.id from events e
      where e.created_at < ${before}::timestamptz
        and not exists (select 1 from deliveries d where d.event_id = e.id and d.status = 'pending')
      limit ${BATCH}::int
    )
  `.execute(db);
  // Webhooks deleted before the period ended are kept only as long as their history.
  const webhooks = await sql`
    delete from webhooks where id in (
      select id from webhooks where deleted_at < ${before}::timestamptz limit ${BATCH}::int
    )
  `.execute(db);
  return [deliveries, events, webhooks].reduce((n, r) => n + Number(r.numAffectedRows ?? 0), 0);
}
