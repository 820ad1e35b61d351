// Last uses of credentials (src/lib/last-uses.ts writes them in batches) in one statement per batch, for any
// table with an `id` and a `last_used_at`. It never moves a time backwards: a batch that arrives late, from
// this process or another, keeps the later time. The owner's repository calls it for its table.
import { sql } from 'kysely';
import type { DB } from '../schema.ts';
import type { Executor } from './database.ts';

type WithLastUse = {
  [T in keyof DB]: DB[T] extends { id: string; last_used_at: Date | null } ? T : never;
}[keyof DB];

/** Writes `uses` (epoch ms, by row id) into `table`. */
export async function recordLastUses(
  db: Executor,
  table: WithLastUse,
  uses: ReadonlyMap<string, number>,
): Promise<void> {
  if (uses.size === 0) return;
  const values = sql.join(
    [...uses].map(([id, at]) => sql`(${id}::text, ${new Date(at).toISOString()}::timestamptz)`),
  );
  await sql`
    update ${sql.table(table)} as t set last_used_at = greatest(t.last_used_at, u.at)
    from (values ${values}) as u (id, at)
    where t.id = u.id`.execute(db);
}
