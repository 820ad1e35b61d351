// Claiming due deliveries: one statement locks a batch with FOR UPDATE SKIP LOCKED (so processes sharing the
// database never take the same row) and leases each one (locked_until). A worker that dies mid-send leaves
// its deliveries claimable again when the lease runs out; nothing else is needed to recover them. Batches, not
// single rows: one claim of 100 costs about the same round trip as a claim of 1.
// The claim also decides what may start now (API.md section 11.4): the slots of a paced endpoint (its
// rate_limit, or the adaptive pace below it) and, for a per_object endpoint, one pending delivery per key. What
// may not start leaves the due index (`parked`), so that it never hides other endpoints' due work from the
// next claims: a paced endpoint's extra rows until the claim takes them back when slots are free, an ordered
// delivery until the end of the one before it releases it (record-outcomes).
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import { deliveryBody } from './delivery-body.ts';

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  merchant_id: string;
  mode: Mode;
  event_id: string;
  /** The webhook's app (null for a merchant's own): the body names it, and its attempts carry it. */
  app_id: string | null;
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
  /** The start of its slot (epoch ms, the claim's clock) when its endpoint is paced; null: at once. */
  start_at: number | null;
  /**
   * Its slot is a rate_limit's, a promise to the endpoint: started within START_LATE_MS of it or given back
   * (holdings.ts). An adaptive pace's slot may start late: that pace is what the endpoint's answers showed it
   * takes, and a late start costs at worst a 429, which lowers it.
   */
  limited: boolean;
  /** It has an ordering key (a per_object endpoint): its outcome may release the next of its key. */
  ordered: boolean;
  /** Queued by a replay: it waits behind the webhook's other held deliveries (holdings.ts). */
  replay?: boolean | null;
}

export interface ClaimOptions {
  worker: string;
  limit: number;
  leaseMs: number;
  /** Per-webhook bound on deliveries held (sending or waiting) in this process. */
  perWebhook: number;
  /** Deliveries this process holds, by webhook. */
  inFlight: Record<string, number>;
  /**
   * Skip the rows of webhooks already at their bound while scanning. Costs a walk over their whole backlog,
   * so the worker uses it only when a plain claim found nothing it may take (see worker.ts).
   */
  skipSaturated: boolean;
  /** The service's time (`ctx.clock`): what is due and what a lease covers are decided against it. */
  now: Date;
  /** How far ahead of `now` a paced endpoint's slots may be given (ms). */
  horizonMs: number;
}

export interface Claim {
  rows: ClaimedDelivery[];
  /** Deliveries this claim took out of the due index (paced or waiting for their key). */
  parked: number;
  /** When a paced endpoint with work left has its next slot within the horizon (epoch ms); null: none. */
  wakeAt: number | null;
  /**
   * Whether the claim met work that only the full claim may take: a due delivery with an ordering key, one of
   * an endpoint that is paced (a `rate_limit`, or paced down), or an endpoint with parked deliveries.
   */
  special: boolean;
}

// A rate_limit's slots are spaced (1 s + this) / rate_limit apart: a start up to START_LATE_MS after its slot
// (holdings.ts), and delays of the network and the receiver up to the rest, never make rate_limit + 1 arrive
// within one second. 50 ms was the first choice: the first request of a new connection arrived 24 ms late on
// the test machine, and a run under load saw 5 in one second at a rate_limit of 4. The price: about
// rate_limit / 1.1 on average. An adaptive pace's slots are spaced 1 s / pace: the pace is what the endpoint's
// answers showed it takes, not a promise made to it, and the margin would hold it 10% under that.
export const SPACING_MARGIN_MS = 100;

export type Row = ClaimedDelivery & {
  grant_id: string | null;
  store_id: string | null;
  summary: boolean;
  parked_count: number | null;
  wake_ms: number | null;
  special: boolean | null;
};

type Held = (webhook: ReturnType<typeof sql.ref>) => RawBuilder<unknown>;

/**
 * What this process holds of a webhook (`held`, by its id column), and the filter that skips the webhooks
 * already at their bound when the claim is told to (`skip`).
 */
export function heldHere(o: ClaimOptions): { held: Held; skip: RawBuilder<unknown> } {
  const inFlight = JSON.stringify(o.inFlight);
  const held = (webhook: ReturnType<typeof sql.ref>) =>
    sql`coalesce((${inFlight}::jsonb ->> ${webhook})::int, 0)`;
  const skip = o.skipSaturated ? sql`and ${held(sql.ref('d.webhook_id'))} < ${o.perWebhook}::int` : sql``;
  return { held, skip };
}

/**
 * Step 1's candidates: the due deliveries (`columns` of each), then, while the window has room, the deliveries
 * replays queued (parked as 'replay', migration 0142), oldest first. Those have no due time, so every ranking
 * below (by next_attempt_at, nulls last) puts them after the due ones: a replay takes only what live work
 * leaves, and never comes before a new event's first attempt (docs/decisions/0146-replays-behind-live-deliveries.md).
 */
export function candidatesOf(
  o: ClaimOptions,
  skip: RawBuilder<unknown>,
  columns: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { now } = o;
  return sql`due as (
      select d.id, d.webhook_id, d.next_attempt_at, ${columns}
      from deliveries d
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz) ${skip}
      limit ${o.limit * 2}::int
    ), candidates as (
      select * from due
      union all
      (select d.id, d.webhook_id, d.next_attempt_at, ${columns}
       from deliveries d
       where d.status = 'pending' and d.parked = 'replay' ${skip}
       order by d.id
       limit greatest(0, ${o.limit * 2}::int - (select count(*) from due)))
    )`;
}

export async function claimDeliveries(db: Executor, o: ClaimOptions): Promise<Claim> {
  const { now } = o;
  const nowMs = now.getTime();
  const { held, skip } = heldHere(o);
  // 1. Due candidates, read without locks, ranked per webhook: one webhook with a backlog takes at most its
  //    free slots and the rest of the batch goes to the others. No ORDER BY: the planner, with a young
  //    table's statistics, sorted every due row to find the oldest (1 ms at 2,000 due); without it the scan
  //    stops after the window, and heap order is insertion order, so the oldest still come first.
  // 2. Pace: the pace rows of the candidates' webhooks, and of every endpoint with parked rows, as this
  //    statement's snapshot has them (`seen`), then locked in their latest version SKIP LOCKED (`paces`): the
  //    slots given here start where every earlier claim's ended, and an endpoint whose row another claim holds
  //    is left to that one. An endpoint without a row (no rate_limit, never paced down) costs one probe.
  //    Slots are given up to the horizon and the webhook's bound; its other candidates are parked, and slots
  //    left over take parked rows back, oldest first.
  // 3. Order: a delivery with a key waits while an earlier one of its key to its endpoint is pending. It is
  //    parked only when that one is locked FOR SHARE here, still pending in its latest version: a
  //    recording that ends it either ran first (then it is not found) or waits for this claim and then
  //    releases what it parks (record-outcomes). A blocker another transaction holds: left due, looked at
  //    again by the next claim.
  // 4. Only the chosen rows are locked, SKIP LOCKED, re-checked on their latest version (another process
  //    may have claimed them since); `+ interval '0 s'` keeps the planner on the primary key rather than a
  //    scan of the whole due index. Locking the whole candidate window (then 4x the batch) had made each claim
  //    cost 5.4 ms here, most of it writing row locks that were released unused.
  // Rows are always reached through their primary key (`= any (array(...))`, lateral lookups): with joins,
  // the planner, blind to how few rows a CTE holds, chose sequential scans of deliveries and events, which
  // made a claim and a recording cost 4-8 ms each at a few thousand rows.
  // 5. The lease is `locked_until` alone, a column no index covers, so the claim is a HOT update that
  //    touches no index; leased rows stay in the due index, where the next claims step over them.
  const steps = [paceAllowance(o, held), choice(o, held), orderAndParking(now), lease(o), paceUpdates()];
  const { rows } = await sql<Row>`
    with ${candidatesOf(o, skip, sql`d.ordering_key, d.ordering_seq`)}, ${sql.join(steps)}
    select c.*, e.payload, w.app_id, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at,
           (w.status = 'enabled' and w.deleted_at is null) as deliverable, s.start_ms as start_at,
           coalesce(s.limited, false) as limited,
           false as summary, null::int as parked_count, null::float8 as wake_ms, null::boolean as special,
           c.id = any (array(select id from locked where replay)) as replay
    from claimed c
    cross join lateral (select payload from events where id = c.event_id offset 0) e
    cross join lateral (select * from webhooks where id = c.webhook_id offset 0) w
    left join slotted s on s.id = c.id
    union all
    -- what the worker needs beyond the rows: how many it parked, and when a paced endpoint that has work left
    -- (parked now, or parked before and its slots all used) can take its next slot; at once (the worker
    -- waits its least) when another transaction held a paced endpoint's row, most often a recording of its
    -- outcomes: no other claim may have given its slots
    select null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
           null, null, null, null, true,
           (select count(*)::int from parked),
           least(
             (select min(x.first + x.slots_used * x.spacing) - ${o.horizonMs}::float8 from paced x
              where x.time_bound and (x.parked_now > 0 or (x.parked and x.found >= x.wanted))),
             (select ${nowMs}::float8 from seen s
              where s.webhook_id <> all (array(select webhook_id from paces)) limit 1)),
           exists (select 1 from seen) or exists (select 1 from candidates where ordering_key is not null),
           null
  `.execute(db);
  return claimOf(rows);
}

/** Step 2 of the claim, its pace: the pace rows it sees, those it locks, and the slots each endpoint has. */
function paceAllowance(o: ClaimOptions, held: Held): RawBuilder<unknown> {
  const nowMs = o.now.getTime();
  return sql`seen as (
      select p.webhook_id, p.parks from webhook_paces p
      where p.webhook_id = any (array(select distinct webhook_id from candidates))
        and (p.rate_limit is not null or p.pace is not null or p.parked)
      union
      select p.webhook_id, p.parks from webhook_paces p where p.parked
    ), paces as (
      select p.webhook_id, p.rate_limit, p.pace, p.next_slot, p.parked, p.parks
      from webhook_paces p
      where p.webhook_id = any (array(select webhook_id from seen))
      for update skip locked
    ), allowance as (
      select p.webhook_id, p.parked, p.parks = s.parks as unchanged, r.rate, g.free, r.spacing, f.first,
             p.rate_limit is not null as limited,
             case when r.rate is null then g.free
                  else least(g.free, greatest(0, ceil(
                    (${nowMs}::float8 + ${o.horizonMs}::float8 - f.first) / r.spacing
                  )))::int end as slots
      from paces p
      join seen s on s.webhook_id = p.webhook_id
      cross join lateral (
        select least(p.rate_limit, p.pace) as rate,
               greatest((1000 + ${SPACING_MARGIN_MS}::float8) / p.rate_limit, 1000 / p.pace) as spacing
      ) r
      cross join lateral (select ${o.perWebhook}::int - ${held(sql.ref('p.webhook_id'))} as free) g
      cross join lateral (
        select greatest(coalesce(extract(epoch from p.next_slot)::float8 * 1000, 0), ${nowMs}::float8) as first
      ) f
    )`;
}

/** Steps 1 and 2, the choice: the candidates ranked per webhook, those picked, and parked rows taken back. */
function choice(o: ClaimOptions, held: Held): RawBuilder<unknown> {
  return sql`ranked as (
      select c.*, a.rate, a.slots, s.webhook_id is not null and a.webhook_id is null as held_elsewhere,
             row_number() over (partition by c.webhook_id order by c.next_attempt_at) as n,
             ${held(sql.ref('c.webhook_id'))} as held
      from candidates c
      left join seen s on s.webhook_id = c.webhook_id
      left join allowance a on a.webhook_id = c.webhook_id
    ), picked as (
      select r.id, r.webhook_id, r.next_attempt_at, r.ordering_key, r.ordering_seq from ranked r
      where not r.held_elsewhere
        and case when r.rate is null then r.n + r.held <= ${o.perWebhook}::int else r.n <= r.slots end
      order by r.next_attempt_at limit ${o.limit}::int
    ), pulled as (
      select x.id, x.webhook_id, x.next_attempt_at, x.ordering_key, x.ordering_seq, a.webhook_id as pace_of,
             a.unchanged, w.wanted
      from allowance a
      cross join lateral (
        select greatest(0, a.slots - (select count(*) from picked k where k.webhook_id = a.webhook_id))::int
          as wanted
      ) w
      left join lateral (
        select d.id, d.webhook_id, d.next_attempt_at, d.ordering_key, d.ordering_seq from deliveries d
        where d.webhook_id = a.webhook_id and d.status = 'pending' and d.parked = 'pace'
        order by d.id limit w.wanted
      ) x on true
      where a.parked
    ), chosen as (
      select id, webhook_id, next_attempt_at, ordering_key, ordering_seq from picked
      union all
      (select id, webhook_id, next_attempt_at, ordering_key, ordering_seq from pulled where id is not null
       order by id limit greatest(0, ${o.limit}::int - (select count(*) from picked)))
    )`;
}

/** Step 3, order, and the parking of what may not start: waiting for its key, or beyond its endpoint's slots. */
function orderAndParking(now: Date): RawBuilder<unknown> {
  return sql`waiting as (
      select ch.id from chosen ch
      where ch.ordering_key is not null and exists (
        select 1 from deliveries h
        where h.webhook_id = ch.webhook_id and h.ordering_key = ch.ordering_key and h.status = 'pending'
          and (h.ordering_seq, h.id) < (ch.ordering_seq, ch.id))
    ), proven as (
      select ch.id from chosen ch
      cross join lateral (
        select h.id from deliveries h
        where h.webhook_id = ch.webhook_id and h.ordering_key = ch.ordering_key and h.status = 'pending'
          and (h.ordering_seq, h.id) < (ch.ordering_seq, ch.id)
        limit 1
        for share skip locked
      ) b
      where ch.id = any (array(select id from waiting))
    ), to_park as (
      select id, 'order' as why from proven
      union all
      -- a replay's delivery beyond the slots stays parked as it is, behind every due one
      select r.id, 'pace' from ranked r where r.rate is not null and r.n > r.slots and r.next_attempt_at is not null
    ), parking as (
      select d.id from deliveries d
      where d.id = any (array(select id from to_park)) and d.status = 'pending'
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
      for update skip locked
    ), parked as (
      update deliveries d
      set next_attempt_at = null, parked = t.why, updated_at = ${now}::timestamptz
      from to_park t
      where d.id = any (array(select id from parking)) and d.id = t.id
      returning d.id, d.webhook_id, d.parked
    )`;
}

/** Step 4 and 5: the chosen rows locked, slotted when paced, and leased. */
function lease(o: ClaimOptions): RawBuilder<unknown> {
  const { now } = o;
  return sql`locked as (
      select d.id, d.parked is not distinct from 'replay' as replay from deliveries d
      where d.id = any (array(select id from chosen where id <> all (array(select id from waiting))))
        and d.status = 'pending'
        and (d.next_attempt_at + interval '0 s' <= ${now}::timestamptz or d.parked in ('pace', 'replay'))
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
      for update skip locked
    ), slotted as (
      select ch.id, ch.webhook_id, a.limited,
             a.first + (row_number() over (partition by ch.webhook_id order by ch.next_attempt_at nulls last, ch.id)
               - 1) * a.spacing as start_ms
      from chosen ch
      join allowance a on a.webhook_id = ch.webhook_id and a.rate is not null
      where ch.id = any (array(select id from locked))
    ), claimed as (
      update deliveries d
      set locked_until = ${now}::timestamptz + ${o.leaseMs}::int * interval '1 millisecond',
          locked_by = ${o.worker}::text,
          -- a delivery taken back from the parked ones comes due again should its lease run out
          next_attempt_at = coalesce(d.next_attempt_at, ${now}::timestamptz),
          parked = null
      where d.id = any (array(select id from locked))
      returning d.id, d.webhook_id, d.merchant_id, d.mode, d.event_id, d.attempt_count, d.step, d.test,
                d.grant_id, d.store_id, d.ordering_key is not null as ordered
    )`;
}

/** What the claim leaves on each pace row: its next free slot, and whether it has parked rows. */
function paceUpdates(): RawBuilder<unknown> {
  return sql`paced as (
      select a.webhook_id, a.first, a.spacing, a.unchanged, a.rate is not null and a.slots < a.free as time_bound,
             (select count(*) from slotted s where s.webhook_id = a.webhook_id) as slots_used,
             (select count(*) from parked k where k.webhook_id = a.webhook_id and k.parked = 'pace') as parked_now,
             coalesce((select max(u.wanted) from pulled u where u.pace_of = a.webhook_id), 0) as wanted,
             (select count(u.id) from pulled u where u.pace_of = a.webhook_id) as found,
             a.parked
      from allowance a
    ), paces_updated as (
      -- (a data-modifying CTE runs whether or not anything reads it)
      update webhook_paces p
      set next_slot = case when x.slots_used > 0
                           then to_timestamp((x.first + x.slots_used * x.spacing) / 1000) else p.next_slot end,
          parked = case when x.parked_now > 0 then true
                        when x.parked and x.found < x.wanted and x.unchanged then false
                        else p.parked end,
          parks = p.parks + case when x.parked_now > 0 then 1 else 0 end
      from paced x
      where p.webhook_id = any (array(select webhook_id from paced))
        and p.webhook_id = x.webhook_id
        and (x.slots_used > 0 or x.parked_now > 0 or (x.parked and x.found < x.wanted and x.unchanged))
      returning p.webhook_id
    )`;
}

/** The claimed rows and the summary row of a claim statement. */
export function claimOf(rows: Row[]): Claim {
  const summary = rows.find((r) => r.summary)!;
  return {
    rows: rows
      .filter((r) => !r.summary)
      .map(({ summary: _s, parked_count: _p, wake_ms: _w, special: _x, grant_id, store_id, ...row }) => ({
        ...row,
        payload: deliveryBody(row.payload, { appId: row.app_id, grantId: grant_id, storeId: store_id }),
      })),
    parked: summary.parked_count ?? 0,
    wakeAt: summary.wake_ms,
    special: summary.special ?? false,
  };
}
