-- Delivery that respects the receiver and keeps order where it matters (API.md section 11.4): a gapless
-- `sequence` per merchant and mode on every event, a `rate_limit` and an adaptive pace per endpoint, and
-- `per_object` ordering. docs/decisions.md, "Pace, sequence and order", has the measurements behind each part.

-- Sequence. One counter row per merchant and mode, taken by the statement that records events: its row lock
-- orders the commits of one merchant and mode (and only those), so numbers follow commit order with no gap.
create table event_sequences (
  merchant_id text collate "C" not null,
  mode text not null,
  last bigint not null,
  primary key (merchant_id, mode)
);
alter table events add column sequence bigint;
-- The events recorded before: numbered in the order they were made. Their stored bodies stay as they were
-- sent (a retry must send the same bytes); the event object and the list show the column.
update events e set sequence = n.seq
from (select id, row_number() over (partition by merchant_id, mode order by created_at, id) as seq from events) n
where e.id = n.id;
insert into event_sequences (merchant_id, mode, last)
select merchant_id, mode, max(sequence) from events group by merchant_id, mode;
alter table events alter column sequence set not null;
-- GET /events?after_sequence=N, oldest first; unique, so that a number given twice fails rather than hides.
create unique index events_sequence_idx on events (merchant_id, mode, sequence);

-- The delivery body with its sequence: the body as built by the service (a JSON object) with
-- `"sequence":N` as its last member. Written once with the event, so every attempt sends the same bytes.
-- The explicit cast keeps the body immutable (text || bigint is only stable), so the planner inlines the call
-- rather than run a function per event.
create function svc_sequenced(p_payload text, p_sequence bigint) returns text
language sql immutable as $$ select left(p_payload, -1) || ',"sequence":' || p_sequence::text || '}' $$;

-- Ordering. `per_object`: a delivery waits while an earlier-recorded one of its key to its endpoint is pending.
alter table webhooks add column ordering text not null default 'none'
  check (ordering in ('none', 'per_object'));
-- The successes of the endpoint's last two seconds (real deliveries), kept by the statement that records
-- outcomes: the rate an endpoint with no rate_limit is paced below when it first answers 429.
alter table webhooks add column ok_second timestamptz,
  add column ok_in_second integer not null default 0,
  add column ok_second_before integer not null default 0;

-- A delivery of a per_object endpoint carries its event's key, and its place among the deliveries of that key:
-- twice its event's sequence (commit order), or for a resend twice the sequence recorded last when it was
-- made, plus one (after the deliveries of every event recorded before it, before those of any later one,
-- whatever the clock says). Null key: not ordered.
-- `parked`: out of the due index while it may not start: 'pace' (its endpoint had no slot free; the claim
-- takes it back from deliveries_parked_idx when one is), 'order' (an earlier delivery of its key is pending;
-- that one's end releases it).
alter table deliveries add column ordering_key text collate "C",
  add column ordering_seq bigint,
  add column parked text check (parked in ('pace', 'order'));
-- Only pending deliveries of ordered endpoints: unordered delivery writes no entry here.
create index deliveries_ordering_idx on deliveries (webhook_id, ordering_key, ordering_seq, id)
  where status = 'pending' and ordering_key is not null;
create index deliveries_parked_idx on deliveries (webhook_id, id) where status = 'pending' and parked = 'pace';

-- Pace. A row per endpoint that has a rate_limit or was paced down; the claim reads the rows of the webhooks
-- of its candidates by primary key, so an endpoint without one costs a probe of this small table.
-- `next_slot`: the earliest start the claims may still grant (the slots of every process are taken here, in
-- the claim's transaction). `slowed_at`: the last decrease; a failure of an attempt started before it does
-- not decrease again. `parked`: deliveries of the endpoint may be parked for pace; `parks` counts the claims
-- that parked some, so a claim that found none can tell whether one committed since it began.
create table webhook_paces (
  webhook_id text collate "C" primary key,
  rate_limit integer check (rate_limit between 1 and 10000),
  pace double precision check (pace > 0),
  pace_reason text check (pace_reason in ('429', '503', 'timeout')),
  pace_at timestamptz,
  slowed_at timestamptz,
  next_slot timestamptz,
  parked boolean not null default false,
  parks bigint not null default 0
);
create index webhook_paces_parked_idx on webhook_paces (webhook_id) where parked;

-- The outbox write with a sequence: svc_record_events as migration 0081 left it (which still exists, unused),
-- plus exactly these, each marked `-- 0060` below:
-- - input: `ordering_key` (given at ingestion, else data.id; null when neither);
-- - `fresh`: the known events not recorded yet, numbered per merchant and mode in the order they were made;
-- - `counter`: the sequence counter, one upsert per merchant and mode in the batch, in key order (two batches
--   never wait on each other's counters in a cycle);
-- - `ev`: the sequence in the row and in the payload (svc_sequenced);
-- - `dl`: ordering_key and ordering_seq on the deliveries of per_object webhooks;
-- - an event counted fresh but not inserted (an id recorded by a transaction that committed after this
--   statement began) would leave a gap: the statement fails with 40001 instead and the caller retries it.
-- A new name rather than a redefinition: in a new database 0060 runs before 0081, whose `create or replace`
-- would undo a redefinition here.
create function svc_record_sequenced_events(p_events jsonb, p_channel text)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
declare
  r record;
  made integer := 0;
  lost boolean := false;
begin
  for r in
  with input as (
    select x.id, x.merchant_id, x.mode, x.type, x.payload, x.created_at, x.id_prefix, x.request_id,
           x.ordering_key -- 0060
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text,
      request_id text, ordering_key text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), fresh as ( -- 0060
    select k.*, count(*) over (partition by k.merchant_id, k.mode) as cnt,
           row_number() over (partition by k.merchant_id, k.mode order by k.created_at, k.id) as rn
    from known k where not exists (select 1 from events e where e.id = k.id)
  ), counter as ( -- 0060
    insert into event_sequences as s (merchant_id, mode, last)
    select f.merchant_id, f.mode, max(f.cnt) from fresh f group by f.merchant_id, f.mode
    order by f.merchant_id collate "C", f.mode collate "C"
    on conflict (merchant_id, mode) do update set last = s.last + excluded.last
    returning s.merchant_id, s.mode, s.last
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at, request_id, sequence)
    select f.id, f.merchant_id, f.mode, f.type, svc_sequenced(f.payload, c.last - f.cnt + f.rn), -- 0060
           f.created_at, f.request_id, c.last - f.cnt + f.rn
    from fresh f join counter c on c.merchant_id = f.merchant_id and c.mode = f.mode
    on conflict on constraint events_pkey do nothing
    returning e.id, e.sequence
  ), dl as (
    -- Delivery ids: the caller's time prefix (src/lib/ids.ts) and 96 bits from a v4 UUID (migration 0004).
    insert into deliveries as d
      (id, webhook_id, merchant_id, mode, event_id, event_type, next_attempt_at, created_at, updated_at,
       ordering_key, ordering_seq)
    select k.id_prefix || substr(md5(gen_random_uuid()::text), 1, 24), w.id, w.merchant_id, w.mode, k.id,
           k.type, k.created_at, k.created_at, k.created_at,
           case when w.ordering = 'per_object' then k.ordering_key end, -- 0060
           case when w.ordering = 'per_object' and k.ordering_key is not null then 2 * ev.sequence end -- 0060
    from known k
    join ev on ev.id = k.id
    join webhooks w
      on w.merchant_id = k.merchant_id and w.mode = k.mode and w.status = 'enabled'
     and w.deleted_at is null and k.type = any (w.events)
    returning d.event_id
  ), counts as (
    select dl.event_id, count(*)::int as n from dl group by dl.event_id
  )
  select i.id as r_id,
         exists (select 1 from known k where k.id = i.id) as r_known,
         exists (select 1 from ev where ev.id = i.id) as r_inserted,
         exists (select 1 from fresh f where f.id = i.id) as r_fresh, -- 0060
         coalesce((select c.n from counts c where c.event_id = i.id), 0) as r_deliveries
  from input i
  loop
    id := r.r_id;
    known_merchant := r.r_known;
    inserted := r.r_inserted;
    deliveries := r.r_deliveries;
    made := made + r.r_deliveries;
    lost := lost or (r.r_fresh and not r.r_inserted); -- 0060
    return next;
  end loop;
  if lost then -- 0060
    raise exception 'an event id of this batch was recorded meanwhile' using errcode = '40001';
  end if;
  if made > 0 and p_channel is not null then
    perform pg_notify(p_channel, '');
  end if;
end $$;
