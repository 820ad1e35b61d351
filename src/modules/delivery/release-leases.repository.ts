// On a clean stop, leases of claims this worker will not send are given back at once instead of waiting
// for them to run out.
import type { Executor } from '../../db/database.ts';

/** `now`: the service's time, the rows' `updated_at`. */
export async function releaseLeases(db: Executor, worker: string, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('deliveries')
    .set({ locked_until: null, locked_by: null, updated_at: now })
    .where('id', 'in', ids)
    .where('locked_by', '=', worker)
    .where('status', '=', 'pending')
    .execute();
}
