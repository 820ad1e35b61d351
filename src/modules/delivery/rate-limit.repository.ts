// A webhook's rate_limit lives in its pace row (webhook_paces, migration 0060), the one row of the endpoint
// that the claim reads and updates, beside the adaptive pace and the next free slot.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** Sets or clears the limit in the caller's transaction; a webhook without a pace row needs none to clear. */
export async function setRateLimit(db: Executor, webhookId: string, limit: number | null): Promise<void> {
  if (limit === null) {
    await db
      .updateTable('webhook_paces')
      .set({ rate_limit: null })
      .where('webhook_id', '=', webhookId)
      .execute();
    return;
  }
  await db
    .insertInto('webhook_paces')
    .values({ webhook_id: webhookId, rate_limit: limit })
    .onConflict((oc) => oc.column('webhook_id').doUpdateSet({ rate_limit: sql`excluded.rate_limit` }))
    .execute();
}
