// Endpoint health (API.md section 10), read and written. Read: each webhook's real deliveries of the last 24
// hours from counters per webhook and hour of creation (webhook_delivery_counts, migration 0205), in the same
// statement as the webhook: the whole hours of the window from the counters, the part of the hour in which
// it began counted from its deliveries (one range of the (webhook_id, id) index, ids beginning with their
// creation time), so the numbers are those of a count of the whole day at the millisecond, for about 1/48 of
// its rows (docs/decisions/0205-webhook-health-counters.md: a page of 100 fell from 12.0 ms of CPU). Written:
// creations by a trigger on deliveries (0205); attempts and successes by the delivery module's outcome
// statement, through `recordHealth`, by a listener's outcome (`countListenerOutcome`) and by a manual retry of
// a succeeded delivery (`uncountSuccess`).
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

const HOUR_MS = 3_600_000;
/** The hour a delivery counts under, as the counts' writers bin `created_at` (date_bin from 2000-01-01 UTC). */
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

/**
 * For `crossJoinLateral` on `webhooks`: the counts of the row's real deliveries created since `since`: the
 * counters of the hours that begin at or after it, and the deliveries of `since` up to the first of them.
 * (deliveries_webhook_idx answers that part with one range per webhook: as row comparisons on (webhook_id, id),
 * which it cannot bound on its descending id, it read the webhook's whole history.)
 */
export function recentDeliveries(since: Date) {
  const whole = new Date(Math.ceil(since.getTime() / HOUR_MS) * HOUR_MS);
  return sql<Omit<RecentDeliveries, 'filtered'>>`(
    select (c.deliveries + e.deliveries)::int as deliveries, (c.attempted + e.attempted)::int as attempted,
           (c.succeeded + e.succeeded)::int as succeeded
    from (select coalesce(sum(n.deliveries), 0) as deliveries, coalesce(sum(n.attempted), 0) as attempted,
                 coalesce(sum(n.succeeded), 0) as succeeded
          from webhook_delivery_counts n
          where n.webhook_id = webhooks.id and n.hour >= ${whole}::timestamptz) c,
         (select count(*) as deliveries, count(*) filter (where d.attempt_count > 0) as attempted,
                 count(*) filter (where d.status = 'succeeded') as succeeded
          from deliveries d
          where d.webhook_id = webhooks.id and d.id >= ${idFloor('dlv', since)} and d.id < ${idFloor('dlv', whole)}
            and not d.test) e
  )`.as('recent');
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

/** Retention: counts (filtered, and of deliveries) of hours before `before`, at most `batch` of each table. */
export async function purgeHealthCounts(db: Executor, before: Date, batch: number): Promise<number> {
  const result = await sql<{ n: number }>`
    with filtered as (
      delete from webhook_filtered_counts where ctid = any (array(
        select ctid from webhook_filtered_counts where hour < ${before}::timestamptz limit ${batch}::int))
      returning 1
    ), delivered as (
      delete from webhook_delivery_counts where ctid = any (array(
        select ctid from webhook_delivery_counts where hour < ${before}::timestamptz limit ${batch}::int))
      returning 1
    )
    select ((select count(*) from filtered) + (select count(*) from delivered))::int as n
  `.execute(db);
  return result.rows[0]?.n ?? 0;
}

/** A delivery as its counts know it: its webhook, its hour of creation, and whether it is a test. */
export interface CountedDelivery {
  webhook_id: string;
  created_at: Date;
  test: boolean;
}

/**
 * A change of a delivery's attempts or success made outside the outcome statement: +1 attempted for its first
 * attempt and +1 succeeded for a success of a listener's delivery (the client's report), -1 succeeded for a
 * succeeded delivery retried by hand (it is pending again). In the caller's transaction, beside that change.
 */
export async function countOutcomeChange(
  db: Executor,
  delivery: CountedDelivery,
  change: { attempted: number; succeeded: number },
): Promise<void> {
  if (delivery.test || (change.attempted === 0 && change.succeeded === 0)) return;
  await sql`
    insert into webhook_delivery_counts as c (webhook_id, hour, source, attempted, succeeded)
    values (${delivery.webhook_id}, ${hourOf(delivery.created_at)}::timestamptz, '', ${change.attempted}::int,
            ${change.succeeded}::int)
    on conflict (webhook_id, hour, source) do update
      set attempted = c.attempted + excluded.attempted, succeeded = c.succeeded + excluded.succeeded
  `.execute(db);
}

/**
 * The health a batch of attempts leaves on their webhooks (the last attempt, the failure streak, the successes
 * of the current second, the counts of first attempts and successes by the deliveries' hour), as one step of the delivery module's outcome statement (record-outcomes.repository.ts),
 * which stays one round trip: that statement defines `input` (the outcomes: id, test, attempted, number),
 * `updated` (the deliveries it changed: id, webhook_id, status) and `streaks`, one row per webhook (webhook_id,
 * ok, failed_at, last_at, last_status, last_error, oks). An older attempt than the last one recorded changes
 * the webhook nothing; the counts take every delivery the statement changed (a claimed one was pending, and
 * had `number - 1` attempts).
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
    ), health_counted as (
      insert into webhook_delivery_counts as c (webhook_id, hour, source, attempted, succeeded)
      select u.webhook_id, date_bin('1 hour', d.created_at, timestamptz '2000-01-01 00:00:00+00'), '',
             count(*) filter (where i.attempted and i.number = 1), count(*) filter (where u.status = 'succeeded')
      from updated u
      join input i on i.id = u.id
      join deliveries d on d.id = u.id
      where d.id = any (array(select id from updated)) and not i.test
        and ((i.attempted and i.number = 1) or u.status = 'succeeded')
      group by 1, 2
      order by 1, 2
      on conflict (webhook_id, hour, source) do update
        set attempted = c.attempted + excluded.attempted, succeeded = c.succeeded + excluded.succeeded
    )`;
}
