import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { EventsTable } from '../../db/schema.ts';

/** `false` when an event with this id already exists (idempotent ingestion). */
export async function insertEvent(db: Executor, row: Insertable<EventsTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('events')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
