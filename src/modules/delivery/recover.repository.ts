// "Recover failed deliveries since T" (API.md section 10): every real delivery of one endpoint since T that
// gave up (`failed`), or that waits for a later retry after a failed attempt, is made due now, oldest first.
// One statement that locks what it takes: a second identical request running at the same time waits for
// those rows and then finds them due already (no longer failed, no longer scheduled later), so it enqueues
// nothing more, and no delivery is ever sent twice because of a double click. (A retry due within the next
// second is left to its schedule: it is not worth pulling forward, and it keeps the two requests apart even
// when the second one's transaction began first.)
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';

/** At most this many deliveries per request: a larger outage is recovered in several calls. */
export const RECOVER_MAX = 10_000;

const recoverable = (webhookId: string, since: Date, now: Date) => sql`
  webhook_id = ${webhookId} and id >= ${idFloor('dlv', since)} and created_at >= ${since} and not test
  and (status = 'failed'
       or (status = 'pending' and attempt_count > 0 and next_attempt_at > ${now}::timestamptz + interval '1 second'
           and (locked_until is null or locked_until < ${now}::timestamptz)))`;

/** How many a recovery would enqueue at `now`, up to RECOVER_MAX + 1 (so the caller can tell "more"). */
export async function countRecoverable(
  db: Executor,
  webhookId: string,
  since: Date,
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      select 1 from deliveries where ${recoverable(webhookId, since, now)} limit ${RECOVER_MAX + 1}
    ) x`.execute(db);
  return rows[0]!.n;
}

/**
 * Makes them due at `now`, a microsecond apart in id (creation) order so that workers send them in time
 * order; a delivery that had given up gets one more attempt (`step` past the schedule), a scheduled one keeps
 * its place in the schedule.
 */
export async function recoverDeliveries(
  db: Executor,
  webhookId: string,
  since: Date,
  scheduleLength: number,
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    with locked as (
      select id from deliveries where ${recoverable(webhookId, since, now)}
      order by id limit ${RECOVER_MAX}
      for update
    ), ordered as (
      select id, row_number() over (order by id) as n from locked
    )
    update deliveries d
    set status = 'pending',
        step = case when d.status = 'failed' then ${scheduleLength}::int else d.step end,
        next_attempt_at = ${now}::timestamptz + o.n * interval '1 microsecond',
        locked_until = null,
        locked_by = null,
        updated_at = ${now}::timestamptz
    from ordered o
    where d.id = o.id
    returning d.id`.execute(db);
  return rows.length;
}
