// The recorded public halves of the checkpoints' signing keys (migration 0071).
import type { Executor } from '../../db/database.ts';

export interface RecordedKey {
  kid: string;
  x: string;
}

/** Records the keys not recorded yet; how many were new. */
export async function recordKeys(db: Executor, keys: readonly RecordedKey[], at: Date): Promise<number> {
  if (keys.length === 0) return 0;
  const added = await db
    .insertInto('audit_signing_keys')
    .values(keys.map((k) => ({ kid: k.kid, x: k.x, recorded_at: at })))
    .onConflict((oc) => oc.column('kid').doNothing())
    .returning('kid')
    .execute();
  return added.length;
}

/** The public half (`x`) of every recorded key, the most recently recorded first: a handful, one per rotation. */
export async function recordedKeys(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_signing_keys')
    .select('x')
    .orderBy('recorded_at', 'desc')
    .orderBy('kid')
    .execute();
  return rows.map((r) => r.x);
}
