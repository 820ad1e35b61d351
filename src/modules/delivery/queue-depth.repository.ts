// The delivery queue as it is now, for the metrics scrape: only pending rows (the partial index
// deliveries_due_idx holds nothing else), so its cost follows the backlog, never the delivery history.
// Capped at 100,000 rows: past that the exact figure changes no decision, and the scrape stays under ~50 ms.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

const CAP = 100_000;

export interface QueueDepthRow {
  due: number;
  scheduled: number;
  leased: number;
  oldest_due_seconds: number | null;
}

/** The queue at `now` (the service's clock, which the claims decide against). */
export async function queueDepth(db: Executor, now: Date): Promise<QueueDepthRow> {
  const at = sql`${now}::timestamptz`;
  const { rows } = await sql<QueueDepthRow>`
    select
      count(*) filter (where next_attempt_at <= ${at} and not leased)::int as due,
      count(*) filter (where next_attempt_at > ${at} and not leased)::int as scheduled,
      count(*) filter (where leased)::int as leased,
      extract(epoch from ${at} - min(next_attempt_at) filter (where next_attempt_at <= ${at} and not leased))::float8
        as oldest_due_seconds
    from (
      select next_attempt_at, coalesce(locked_until > ${at}, false) as leased
      from deliveries where status = 'pending'
      limit ${CAP}::int
    ) pending
  `.execute(db);
  return rows[0]!;
}
