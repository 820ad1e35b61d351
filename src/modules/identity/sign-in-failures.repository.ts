// The shared sign-in failure budgets (migration 0170): a row per budget with failures, keyed by the SHA-256 of
// the budget's key. Each failure is one upsert that counts it (starting afresh when the budget was forgotten)
// and one update that extends the wait the count starts: the back-off rule stays one function in JS
// (`waitAfter`), and a failure, which only an attacker or a mistyping owner makes, may cost two round trips.
// Times are the service clock's epoch milliseconds.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type Scope = 'account' | 'address';

/** The budget's last failure and the end of its wait (epoch ms), if it has failures. */
export async function readFailures(
  db: Executor,
  scope: Scope,
  key: string,
): Promise<{ lastFailure: number; blockedUntil: number } | undefined> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select(['last_failure_ms', 'blocked_until_ms'])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  return row && { lastFailure: Number(row.last_failure_ms), blockedUntil: Number(row.blocked_until_ms) };
}

/** Counts a failure at `now`; the budget's failures since it was last forgotten, this one included. */
export async function countFailure(
  db: Executor,
  scope: Scope,
  key: string,
  now: number,
  forgetMs: number,
): Promise<number> {
  const forgotten = sql<boolean>`sign_in_failures.last_failure_ms <= ${now - forgetMs}
    and sign_in_failures.blocked_until_ms <= ${now}`;
  const row = await db
    .insertInto('sign_in_failures')
    .values({ scope, key, failures: 1, last_failure_ms: now, blocked_until_ms: 0 })
    .onConflict((oc) =>
      oc.columns(['scope', 'key']).doUpdateSet({
        failures: sql`case when ${forgotten} then 1 else sign_in_failures.failures + 1 end`,
        blocked_until_ms: sql`case when ${forgotten} then 0 else sign_in_failures.blocked_until_ms end`,
        last_failure_ms: now,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** The budget waits until `until` at least (a later wait another process set stays). */
export async function extendBlock(db: Executor, scope: Scope, key: string, until: number): Promise<void> {
  await db
    .updateTable('sign_in_failures')
    .set({ blocked_until_ms: sql`greatest(blocked_until_ms, ${until})` })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/** A success proved the attempts were the owner's: the budget starts afresh. */
export async function forgetFailures(db: Executor, scope: Scope, key: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('scope', '=', scope).where('key', '=', key).execute();
}

/** Rows whose last failure is older than `before` and whose wait is over: forgotten by every budget. */
export async function purgeForgottenFailures(db: Executor, before: number, now: number): Promise<void> {
  await db
    .deleteFrom('sign_in_failures')
    .where('last_failure_ms', '<', before)
    .where('blocked_until_ms', '<=', now)
    .execute();
}
