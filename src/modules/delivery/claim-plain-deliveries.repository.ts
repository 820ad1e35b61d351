// The plain claim: what neither pace nor order concerns, claimed by a statement without those steps (the full
// claim, its types and its reasons are in claim-deliveries.repository.ts).
import { sql } from 'kysely';
import { runPrepared, type Prepared } from '../../db/prepared.ts';
import {
  candidatesOf,
  claimOf,
  heldHere,
  type Claim,
  type ClaimOptions,
  type Row,
} from './claim-deliveries.repository.ts';

/**
 * The claim of deliveries that neither pace nor order concerns, which is most of them: the due candidates
 * without an ordering key whose endpoint has no pace row that paces or parks, ranked per webhook, locked
 * and leased, as claimDeliveries does with none of its pace and order steps. Those steps made the full
 * statement cost about 2 ms of planning per claim against 0.3 ms for this one (docs/performance-history.md, tenth
 * pass). It takes nothing the full claim would have treated otherwise, and says when it met work it left
 * (`special`): the worker then claims with the full statement until a claim of it meets none. Prepared on the
 * worker's pool (docs/decisions/0225-delivery-statements-prepared.md), a variant that skips saturated webhooks
 * named apart.
 */
export async function claimPlainDeliveries(on: Prepared, o: ClaimOptions): Promise<Claim> {
  const { now } = o;
  const { held, skip } = heldHere(o);
  const name = o.skipSaturated ? 'svc_claim_plain_skip' : 'svc_claim_plain';
  const rows = await runPrepared(
    on,
    name,
    sql<Row>`
    with ${candidatesOf(o, skip, sql`d.ordering_key`)}, paced as (
      select p.webhook_id from webhook_paces p
      where p.webhook_id = any (array(select distinct webhook_id from candidates))
        and (p.rate_limit is not null or p.pace is not null or p.parked)
    ), ranked as (
      select c.id, c.next_attempt_at,
             row_number() over (partition by c.webhook_id order by c.next_attempt_at)
               + ${held(sql.ref('c.webhook_id'))} as slot
      from candidates c
      where c.ordering_key is null and c.webhook_id <> all (array(select webhook_id from paced))
    ), chosen as (
      select id from ranked where slot <= ${o.perWebhook}::int order by next_attempt_at limit ${o.limit}::int
    ), locked as (
      -- each by its primary key: with the list in one condition, the generic plan read the whole due index
      select d.id, d.replay from unnest(array(select id from chosen)) as ch(id)
      cross join lateral (
        select d.id, d.parked is not distinct from 'replay' as replay from deliveries d
        where d.id = ch.id
          and d.status = 'pending'
          and (d.next_attempt_at + interval '0 s' <= ${now}::timestamptz or d.parked = 'replay')
          and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        for update skip locked
      ) d
    ), claimed as (
      update deliveries d
      set locked_until = ${now}::timestamptz + ${o.leaseMs}::int * interval '1 millisecond',
          locked_by = ${o.worker}::text,
          -- a replay's delivery leaves its parking, and comes due again should its lease run out
          next_attempt_at = coalesce(d.next_attempt_at, ${now}::timestamptz),
          parked = null
      where d.id = any (array(select id from locked))
      returning d.id, d.webhook_id, d.merchant_id, d.mode, d.event_id, d.attempt_count, d.step, d.test,
                d.grant_id, d.store_id, d.ordering_key is not null as ordered
    )
    select c.*, e.payload, w.app_id, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at,
           (w.status = 'enabled' and w.deleted_at is null) as deliverable, null::float8 as start_at,
           false as limited,
           false as summary, null::int as parked_count, null::float8 as wake_ms, null::boolean as special,
           c.id = any (array(select id from locked where replay)) as replay
    from claimed c
    cross join lateral (select payload from events where id = c.event_id offset 0) e
    cross join lateral (select * from webhooks where id = c.webhook_id offset 0) w
    union all
    select null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
           null, null, null, null, true, 0, null,
           exists (select 1 from paced) or exists (select 1 from candidates where ordering_key is not null)
             or exists (select 1 from webhook_paces where parked),
           null
  `,
  );
  return claimOf(rows);
}
