// Claiming due deliveries: one statement locks a batch with FOR UPDATE SKIP LOCKED (so processes sharing the
// database never take the same row) and moves each one's next_attempt_at to the end of a lease. A worker
// that dies mid-send leaves its deliveries due again when the lease runs out; nothing else is needed to
// recover them. Batches, not single rows: one claim of 100 costs about the same round trip as a claim of 1.
import { sql } from 'kysely';
import type { Executor } from '../../../db/database.ts';
import type { Mode } from '../../../lib/credentials.ts';

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  merchant_id: string;
  mode: Mode;
  event_id: string;
  attempt_count: number;
  step: number;
  test: boolean;
  payload: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  /** The webhook is enabled and not deleted. */
  deliverable: boolean;
}

export interface ClaimOptions {
  worker: string;
  limit: number;
  leaseMs: number;
  /** Per-webhook bound on attempts in flight in this process. */
  perWebhook: number;
  /** Attempts this process has in flight, by webhook. */
  inFlight: Record<string, number>;
  /**
   * Skip the rows of webhooks already at their bound while scanning. Costs a walk over their whole backlog,
   * so the worker uses it only when a plain claim found nothing it may take (see worker.ts).
   */
  skipSaturated: boolean;
}

export async function claimDeliveries(db: Executor, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const inFlight = JSON.stringify(o.inFlight);
  const skip = o.skipSaturated
    ? sql`and coalesce((${inFlight}::jsonb ->> d.webhook_id)::int, 0) < ${o.perWebhook}::int`
    : sql``;
  // The candidate window is wider than the batch and ranked per webhook, so one webhook with a backlog takes
  // at most its free slots and the rest of the batch goes to the others. Candidates not chosen are unlocked
  // when the statement ends.
  const { rows } = await sql<ClaimedDelivery>`
    with candidates as (
      select d.id, d.webhook_id, d.next_attempt_at
      from deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now() ${skip}
      order by d.next_attempt_at
      limit ${o.limit * 4}::int
      for update skip locked
    ), ranked as (
      select c.id, c.next_attempt_at,
             row_number() over (partition by c.webhook_id order by c.next_attempt_at)
               + coalesce((${inFlight}::jsonb ->> c.webhook_id)::int, 0) as slot
      from candidates c
    ), chosen as (
      select id from ranked where slot <= ${o.perWebhook}::int order by next_attempt_at limit ${o.limit}::int
    )
    update deliveries d
    set next_attempt_at = now() + ${o.leaseMs}::int * interval '1 millisecond',
        locked_until = now() + ${o.leaseMs}::int * interval '1 millisecond',
        locked_by = ${o.worker}::text
    from chosen, events e, webhooks w
    where d.id = chosen.id and e.id = d.event_id and w.id = d.webhook_id
    returning d.id, d.webhook_id, d.merchant_id, d.mode, d.event_id, d.attempt_count, d.step, d.test,
              e.payload, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at,
              (w.status = 'enabled' and w.deleted_at is null) as deliverable
  `.execute(db);
  return rows;
}
