// Claiming due deliveries: one statement locks a batch with FOR UPDATE SKIP LOCKED (so processes sharing the
// database never take the same row) and leases each one (locked_until). A worker that dies mid-send leaves
// its deliveries claimable again when the lease runs out; nothing else is needed to recover them. Batches, not single rows: one claim of 100 costs about the same round trip as a claim of 1.
import { sql } from 'kysely';
import type { Executor } from '../../../db/database.ts';
import type { Mode } from '../../../lib/credentials.ts';
import { deliveryBody } from '../delivery-body.ts';

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  merchant_id: string;
  mode: Mode;
  event_id: string;
  attempt_count: number;
  step: number;
  test: boolean;
  /** The body every attempt sends and signs: the event's payload, with the installation for an app webhook. */
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
  /** The service's time (`ctx.clock`): what is due and what a lease covers are decided against it. */
  now: Date;
}

export async function claimDeliveries(db: Executor, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const { now } = o;
  const inFlight = JSON.stringify(o.inFlight);
  const skip = o.skipSaturated
    ? sql`and coalesce((${inFlight}::jsonb ->> d.webhook_id)::int, 0) < ${o.perWebhook}::int`
    : sql``;
  // 1. Due candidates, read without locks, ranked per webhook: one webhook with a backlog takes at most its
  //    free slots and the rest of the batch goes to the others. No ORDER BY: the planner, with a young
  //    table's statistics, sorted every due row to find the oldest (1 ms at 2,000 due); without it the scan
  //    stops after the window, and heap order is insertion order, so the oldest still come first.
  // 2. Only the chosen rows are locked, SKIP LOCKED, re-checked on their latest version (another process
  //    may have claimed them since); `+ interval '0 s'` keeps the planner on the primary key rather than a
  //    scan of the whole due index. Locking the whole candidate window (then 4x the batch) had made each claim
  //    cost 5.4 ms here, most of it writing row locks that were released unused.
  // Rows are always reached through their primary key (`= any (array(...))`, lateral lookups): with joins,
  // the planner, blind to how few rows a CTE holds, chose sequential scans of deliveries and events, which
  // made a claim and a recording cost 4-8 ms each at a few thousand rows.
  // 3. The lease is `locked_until` alone, a column no index covers, so the claim is a HOT update that
  //    touches no index; leased rows stay in the due index, where the next claims step over them.
  const { rows } = await sql<
    ClaimedDelivery & { app_id: string | null; grant_id: string | null; store_id: string | null }
  >`
    with candidates as (
      select d.id, d.webhook_id, d.next_attempt_at
      from deliveries d
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz) ${skip}
      limit ${o.limit * 2}::int
    ), ranked as (
      select c.id, c.next_attempt_at,
             row_number() over (partition by c.webhook_id order by c.next_attempt_at)
               + coalesce((${inFlight}::jsonb ->> c.webhook_id)::int, 0) as slot
      from candidates c
    ), chosen as (
      select id from ranked where slot <= ${o.perWebhook}::int order by next_attempt_at limit ${o.limit}::int
    ), locked as (
      select d.id from deliveries d
      where d.id = any (array(select id from chosen))
        and d.status = 'pending' and d.next_attempt_at + interval '0 s' <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
      for update skip locked
    ), claimed as (
      update deliveries d
      set locked_until = ${now}::timestamptz + ${o.leaseMs}::int * interval '1 millisecond',
          locked_by = ${o.worker}::text
      where d.id = any (array(select id from locked))
      returning d.id, d.webhook_id, d.merchant_id, d.mode, d.event_id, d.attempt_count, d.step, d.test,
                d.grant_id, d.store_id
    )
    select c.*, e.payload, w.app_id, w.url, w.secret_sealed, w.previous_secret_sealed,
           w.previous_secret_expires_at,
           (w.status = 'enabled' and w.deleted_at is null) as deliverable
    from claimed c
    cross join lateral (select payload from events where id = c.event_id offset 0) e
    cross join lateral (select * from webhooks where id = c.webhook_id offset 0) w
  `.execute(db);
  return rows.map(({ app_id, grant_id, store_id, ...row }) => ({
    ...row,
    payload: deliveryBody(row.payload, { appId: app_id, grantId: grant_id, storeId: store_id }),
  }));
}
