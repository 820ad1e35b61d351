// Endpoint health (API.md section 10), read and written. Read: the real deliveries of the last 24 hours of
// each webhook read, in the same statement as the webhook. Delivery ids begin with their creation time, so the
// window is one range of the (webhook_id, id) index per webhook, joined laterally: the cost follows the last
// day's traffic of the webhooks read, never the history. (A `webhook_id = any (...)` filter instead let the
// planner choose a sequential scan that tested every row against the whole page of ids.) Written: by the
// delivery module's outcome statement, through `recordHealth`.
import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { idFloor } from '../../lib/ids.ts';
import type { DB } from '../../schema.ts';

export interface RecentDeliveries {
  deliveries: number;
  /** Events its payload filter refused since then (counted by the hour, migration 0140). */
  filtered: number;
  /** Deliveries with at least one attempt: the denominator of the success rate. */
  attempted: number;
  succeeded: number;
}

/** For `crossJoinLateral` on `webhooks`: the counts of the row's real deliveries created since `since`. */
export function recentDeliveries(since: Date) {
  return (eb: ExpressionBuilder<DB, 'webhooks'>) =>
    eb
      .selectFrom('deliveries')
      .select([
        sql<number>`count(*)::int`.as('deliveries'),
        sql<number>`(count(*) filter (where attempt_count > 0))::int`.as('attempted'),
        sql<number>`(count(*) filter (where status = 'succeeded'))::int`.as('succeeded'),
      ])
      .whereRef('deliveries.webhook_id', '=', 'webhooks.id')
      .where('deliveries.id', '>=', idFloor('dlv', since))
      .where('deliveries.test', '=', false)
      .as('recent');
}

/**
 * For `crossJoinLateral` on `webhooks`: what the row's filter refused in the hours that began after `since`
 * (the current hour and the 23 before it, for a day before now): one short range of the counts' key.
 */
export function recentlyFiltered(since: Date) {
  return (eb: ExpressionBuilder<DB, 'webhooks'>) =>
    eb
      .selectFrom('webhook_filtered_counts as f')
      .select(sql<number>`coalesce(sum(f.filtered), 0)::int`.as('filtered'))
      .whereRef('f.webhook_id', '=', 'webhooks.id')
      .where('f.hour', '>', since)
      .as('refused');
}

/** Retention: counts of hours before `before`, at most `batch`; answers how many went. */
export async function purgeFilteredCounts(db: Executor, before: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from webhook_filtered_counts where ctid = any (array(
      select ctid from webhook_filtered_counts where hour < ${before}::timestamptz limit ${batch}::int))
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The health a batch of attempts leaves on their webhooks (the last attempt, the failure streak, the successes
 * of the current second), as one step of the delivery module's outcome statement (record-outcomes.repository.ts),
 * which stays one round trip: that statement defines `streaks`, one row per webhook (webhook_id, ok, failed_at,
 * last_at, last_status, last_error, oks). An older attempt than the last one recorded changes nothing.
 */
export function recordHealth(now: Date): RawBuilder<unknown> {
  // The webhook's second of successes has ended: a new one begins now.
  const rolls = sql`(w.ok_second is null or w.ok_second <= ${now}::timestamptz - interval '1 second')`;
  return sql`webhooks_updated as (
      update webhooks w
      set failing_since = case when s.ok then null else coalesce(w.failing_since, s.failed_at) end,
          last_attempt_at = s.last_at,
          last_response_status = s.last_status,
          last_error = s.last_error,
          ok_second = case when ${rolls} then ${now}::timestamptz else w.ok_second end,
          ok_second_before = case when not ${rolls} then w.ok_second_before
                                  when w.ok_second > ${now}::timestamptz - interval '2 seconds' then w.ok_in_second
                                  else 0 end,
          ok_in_second = case when ${rolls} then s.oks else w.ok_in_second + s.oks end
      from streaks s
      where w.id = any (array(select webhook_id from streaks)) and w.id = s.webhook_id
        and (w.last_attempt_at is null or w.last_attempt_at <= s.last_at)
    )`;
}
