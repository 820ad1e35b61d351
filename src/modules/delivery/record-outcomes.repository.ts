// Recording a batch of attempt outcomes in ONE statement: the attempts, the deliveries' new state and the
// webhooks' failure streaks (a step the webhooks module writes, recordHealth), from one JSON parameter. Per
// delivery that replaces an INSERT and an UPDATE (two round trips and two commits) with 1/n of one; at a batch
// of 50 the recording cost per delivery fell from about 0.5 ms to under 0.05 ms on PostgreSQL here.
import { sql } from 'kysely';
import { runPrepared, type Prepared } from '../../db/prepared.ts';
import { recordHealth } from '../webhooks/index.ts';
import type { AttemptOutcome } from './delivery.table.ts';
import type { Outcome } from './retry-schedule.ts';

export interface OutcomeRow {
  id: string;
  webhook_id: string;
  /** The attempt's own id (`att_` + its start time), and what the attempts list reads beside it (migration 0130). */
  attempt_id: string;
  /** The webhook's app, null for a merchant's own. */
  app_id: string | null;
  outcome: AttemptOutcome;
  test: boolean;
  /** The attempt's number: attempt_count + 1 at claim time. */
  number: number;
  /** False when nothing was sent (the webhook was disabled or deleted meanwhile). */
  attempted: boolean;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  /** JSON objects: the headers sent, and the answer's. */
  request_headers: string | null;
  response_headers: string | null;
  error: string | null;
  status: Outcome;
  step: number;
  next_attempt_at: string | null;
  ok: boolean;
}

// The adaptive pace (API.md section 11.4), one law for every endpoint, decided here from each batch of
// outcomes (docs/decisions/0116-pace-law.md, has the runs that chose the constants):
// - an attempt answered 429 or 503, or timed out, that started PACE_GRACE_MS or more after the endpoint's last
//   decrease: the pace becomes PACE_DECREASE x the least of its rate_limit, its pace and the successes of its
//   last second (what the endpoint showed it can take), at least PACE_MIN. Refusals of attempts that started
//   sooner slow nothing: the receiver's window still holds what was sent before the decrease, and slots given
//   before it (up to the claim's 1 s horizon) are still being used;
// - successes within PACE_GRACE_MS of a decrease refine it: the pace rises to PACE_DECREASE x the successes
//   of the last second, never above the decrease from where it started (`slowed_from`). A first refusal in a
//   burst is recorded before most of the burst's successes are; counted then, they would pace the endpoint at
//   half of what it takes;
// - successes after that: the pace grows, per second since its last change (at most PACE_GROWTH_SPAN_S of
//   them at once), by PACE_GROWTH of itself and at least PACE_STEP (an endpoint paced down to PACE_MIN by
//   timeouts is back at 50/s within a minute), and is dropped (unconstrained, or its rate_limit) once it
//   reaches the rate_limit or PACE_MAX.
export const PACE_DECREASE = 0.95;
export const PACE_GROWTH = 0.02;
export const PACE_STEP = 1;
export const PACE_MIN = 1;
export const PACE_MAX = 10_000;
export const PACE_GRACE_MS = 1000;
const PACE_GROWTH_SPAN_S = 5;

/**
 * Only while this worker still holds the lease of this attempt: a worker that ran past its lease must not
 * overwrite what the next one did, and its late attempt is not recorded (the next worker's is). That guard
 * is also why the attempts need no ON CONFLICT clause, which cost a speculative insertion per row.
 * The same statement paces the endpoints (above), counts their successes per second (the recent rate a first
 * decrease starts from), and releases the next delivery of each ordering key whose pending one ended: made
 * due if it was parked for its key, and written in any case, so that a claim that would park it concurrently
 * either sees this end or has its parking undone (it locked the ended delivery FOR SHARE, so this statement
 * waited for it, and then writes the parked row's latest version). The answer: how many it released, due now
 * unless a retry or the pace keeps them waiting. `plain`: a batch that pace and order do not concern, recorded
 * without those steps (paceAndOrder, below). Prepared on the worker's pool where it has one (decision 0225).
 */
export async function recordOutcomes(
  on: Prepared,
  worker: string,
  outcomes: OutcomeRow[],
  now: Date,
  plain = false,
): Promise<number> {
  const rows = await runPrepared(
    on,
    plain ? 'svc_record_outcomes_plain' : 'svc_record_outcomes',
    sql<{ released: number }>`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as x(
        id text, webhook_id text, attempt_id text, app_id text, outcome text, test boolean, number int,
        attempted boolean, started_at timestamptz, duration_ms int, response_status int, response_body text,
        request_headers text, response_headers text, error text, status text, step int,
        next_attempt_at timestamptz, ok boolean)
    ), updated as (
      update deliveries d
      set status = i.status,
          step = i.step,
          next_attempt_at = i.next_attempt_at,
          locked_until = null,
          locked_by = null,
          attempt_count = case when i.attempted then i.number else d.attempt_count end,
          last_attempt_at = case when i.attempted then i.started_at else d.last_attempt_at end,
          last_response_status = case when i.attempted then i.response_status else d.last_response_status end,
          last_error = case when i.attempted then i.error else d.last_error end,
          updated_at = ${now}::timestamptz
      from input i
      where d.id = any (array(select id from input)) -- by primary key: the planner cannot size the JSON input
        and d.id = i.id and d.locked_by = ${worker}::text and d.attempt_count = i.number - 1
      returning d.id, d.webhook_id, d.status, d.ordering_key, d.merchant_id, d.mode, d.event_id, d.event_type,
                d.store_id
    ), attempts as (
      insert into delivery_attempts
        (id, delivery_id, number, started_at, duration_ms, response_status, response_body, request_headers,
         response_headers, error, merchant_id, mode, webhook_id, event_id, event_type, store_id, app_id, outcome)
      select i.attempt_id, i.id, i.number, i.started_at, i.duration_ms, i.response_status, i.response_body,
             i.request_headers, i.response_headers, i.error, u.merchant_id, u.mode, u.webhook_id, u.event_id,
             u.event_type, u.store_id, i.app_id, i.outcome
      from input i join updated u on u.id = i.id
      where i.attempted
    ), real as (
      select i.*, case when i.response_status in (429, 503) then i.response_status::text
                       when i.error like 'timeout:%' then 'timeout' end as slowed
      from input i where i.attempted and not i.test
    ), streaks as (
      -- per webhook: whether any attempt succeeded, the first failure, the latest attempt (health), the
      -- successes, and the latest attempt that asked for a lower pace
      select distinct on (webhook_id) webhook_id,
             bool_or(ok) over w as ok, min(started_at) over w as failed_at,
             started_at as last_at, response_status as last_status, error as last_error,
             count(*) filter (where ok) over w as oks,
             max(started_at) filter (where slowed is not null) over w as slowed_start,
             first_value(slowed) over (partition by webhook_id order by (slowed is null), started_at desc)
               as slowed
      from real
      window w as (partition by webhook_id)
      order by webhook_id, started_at desc
    ), ${recordHealth(now)}
    ${plain ? sql`select 0 as released` : paceAndOrder(now)}
  `,
  );
  return rows[0]?.released ?? 0;
}

/**
 * The steps of the recording that pace and order concern, and its answer: the pace decided for each endpoint
 * of the batch, and the release of the next delivery of each key whose pending one ended (how many). A batch
 * with no paced, ordered or refused outcome leaves them out (`plain`, chosen by the worker): its planning fell
 * from 0.89 to 0.43 ms per batch here, and for such a batch they change nothing but the growth of an endpoint
 * paced since its deliveries were claimed, which its next batch makes up (growth counts the seconds since the
 * last change).
 */
function paceAndOrder(now: Date) {
  return sql`
    , current_paces as (
      select p.webhook_id, p.rate_limit, p.pace, p.pace_at, p.slowed_at, p.slowed_from from webhook_paces p
      where p.webhook_id = any (array(select webhook_id from streaks))
      order by p.webhook_id
      for update
    ), decided as (
      select s.webhook_id, s.slowed, c.webhook_id is not null as has_row, n.slowing,
             least(c.rate_limit::float8, c.pace) as bound,
             case
               when n.slowing then greatest(${PACE_MIN}::float8,
                                            ${PACE_DECREASE}::float8 * least(c.rate_limit::float8, c.pace, n.oks))
               when c.slowed_at > ${now}::timestamptz - ${PACE_GRACE_MS}::int * interval '1 millisecond'
                 then greatest(c.pace, ${PACE_DECREASE}::float8 * least(c.slowed_from, c.rate_limit::float8, n.oks))
               else c.pace + greatest(${PACE_STEP}::float8, ${PACE_GROWTH}::float8 * c.pace)
                      * least(${PACE_GROWTH_SPAN_S}::float8, extract(epoch from ${now}::timestamptz - c.pace_at)::float8)
             end as pace
      from streaks s
      join webhooks w on w.id = s.webhook_id
      left join current_paces c on c.webhook_id = s.webhook_id
      cross join lateral (
        select s.slowed is not null
               and (c.slowed_at is null
                    or s.slowed_start >= c.slowed_at + ${PACE_GRACE_MS}::int * interval '1 millisecond') as slowing,
               -- the successes of the last second: this one so far (this batch's included), or the one before
               greatest(w.ok_second_before + 0.0, case when w.ok_second > ${now}::timestamptz - interval '1 second'
                                                       then w.ok_in_second else 0 end + s.oks) as oks
      ) n
      where n.slowing or (c.pace is not null and s.oks > 0)
    ), paced_new as (
      insert into webhook_paces (webhook_id, pace, pace_reason, pace_at, slowed_at)
      select d.webhook_id, d.pace, d.slowed, ${now}::timestamptz, ${now}::timestamptz from decided d
      where not d.has_row
      on conflict (webhook_id) do nothing
    ), paced as (
      update webhook_paces p
      set pace = case when not d.slowing and (d.pace >= p.rate_limit or d.pace >= ${PACE_MAX}::float8) then null
                      else d.pace end,
          pace_reason = case when d.slowing then d.slowed
                             when d.pace >= p.rate_limit or d.pace >= ${PACE_MAX}::float8 then null
                             else p.pace_reason end,
          pace_at = ${now}::timestamptz,
          slowed_at = case when d.slowing then ${now}::timestamptz else p.slowed_at end,
          slowed_from = case when d.slowing then d.bound else p.slowed_from end
      from decided d
      where p.webhook_id = any (array(select webhook_id from current_paces)) and p.webhook_id = d.webhook_id
    ), next_of_key as (
      -- the next delivery of each key whose pending delivery this batch ended (others of the batch aside)
      select distinct n.id from updated u
      cross join lateral (
        select x.id from deliveries x
        where x.webhook_id = u.webhook_id and x.ordering_key = u.ordering_key and x.status = 'pending'
          and x.id <> all (array(select id from updated))
        order by x.ordering_seq, x.id
        limit 1
      ) n
      where u.status <> 'pending' and u.ordering_key is not null
    ), released as (
      update deliveries d
      set next_attempt_at = case when d.parked = 'pace' then d.next_attempt_at
                                 else coalesce(d.next_attempt_at, ${now}::timestamptz) end,
          parked = case when d.parked = 'order' then null else d.parked end,
          updated_at = ${now}::timestamptz
      where d.id = any (array(select id from next_of_key)) and d.status = 'pending'
      returning d.id
    )
    select (select count(*) from released)::int as released`;
}

/** An outcome that asks its endpoint for a lower pace: 429, 503, or a timeout (as `real.slowed` above). */
export function slows(o: Pick<OutcomeRow, 'response_status' | 'error'>): boolean {
  return o.response_status === 429 || o.response_status === 503 || (o.error?.startsWith('timeout:') ?? false);
}
