// Recording a batch of attempt outcomes in ONE statement: the attempts, the deliveries' new state and the
// webhooks' failure streaks, from one JSON parameter. Per delivery that replaces an INSERT and an UPDATE
// (two round trips and two commits) with 1/n of one; at a batch of 50 the recording cost per delivery fell
// from about 0.5 ms to under 0.05 ms on PostgreSQL here.
import { sql } from 'kysely';
import type { Executor } from '../../../db/database.ts';
import type { Outcome } from './retry-schedule.ts';

export interface OutcomeRow {
  id: string;
  webhook_id: string;
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

/**
 * Only while this worker still holds the lease of this attempt: a worker that ran past its lease must not
 * overwrite what the next one did, and its late attempt is not recorded (the next worker's is). That guard
 * is also why the attempts need no ON CONFLICT clause, which cost a speculative insertion per row.
 */
export async function recordOutcomes(
  db: Executor,
  worker: string,
  outcomes: OutcomeRow[],
  now: Date,
): Promise<void> {
  await sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as x(
        id text, webhook_id text, test boolean, number int, attempted boolean, started_at timestamptz,
        duration_ms int, response_status int, response_body text, request_headers text,
        response_headers text, error text, status text, step int,
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
      returning d.id
    ), attempts as (
      insert into delivery_attempts
        (delivery_id, number, started_at, duration_ms, response_status, response_body, request_headers,
         response_headers, error)
      select id, number, started_at, duration_ms, response_status, response_body, request_headers,
             response_headers, error
      from input where attempted and id = any (array(select id from updated))
    ), streaks as (
      -- per webhook: whether any attempt succeeded, the first failure, and the latest attempt (health)
      select distinct on (webhook_id) webhook_id,
             bool_or(ok) over w as ok, min(started_at) over w as failed_at,
             started_at as last_at, response_status as last_status, error as last_error
      from input where attempted and not test
      window w as (partition by webhook_id)
      order by webhook_id, started_at desc
    )
    update webhooks w
    set failing_since = case when s.ok then null else coalesce(w.failing_since, s.failed_at) end,
        last_attempt_at = s.last_at,
        last_response_status = s.last_status,
        last_error = s.last_error
    from streaks s
    where w.id = any (array(select webhook_id from streaks)) and w.id = s.webhook_id
      and (w.last_attempt_at is null or w.last_attempt_at <= s.last_at)
  `.execute(db);
}
