-- Events remember the request that recorded them (API.md section 11.6: a request log entry links the
-- deliveries its request caused). `request_id` is the X-Request-Id of the call during which the event was
-- recorded: a public call that emits in process, a merchant call (trigger), or the platform's ingestion call,
-- which carries the id of the call it acts on in X-Request-Id. Null for events no request made (the cart
-- sweep). No index: a write of every ingestion must not pay for a lookup of the request detail page, which
-- reads the merchant's events of the request's few seconds instead (events_created_idx).
alter table events add column request_id text;

-- svc_record_events (migration 0019) with the event's request_id; nothing else changed.
create or replace function svc_record_events(p_events jsonb, p_channel text)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
declare
  r record;
  made integer := 0;
begin
  for r in
  with input as (
    select x.id, x.merchant_id, x.mode, x.type, x.payload, x.created_at, x.id_prefix, x.request_id
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text,
      request_id text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at, request_id)
    select k.id, k.merchant_id, k.mode, k.type, k.payload, k.created_at, k.request_id from known k
    on conflict on constraint events_pkey do nothing
    returning e.id
  ), dl as (
    -- Delivery ids: the caller's time prefix (src/lib/ids.ts) and 96 bits from a v4 UUID (migration 0004).
    insert into deliveries as d
      (id, webhook_id, merchant_id, mode, event_id, event_type, next_attempt_at, created_at, updated_at)
    select k.id_prefix || substr(md5(gen_random_uuid()::text), 1, 24), w.id, w.merchant_id, w.mode, k.id,
           k.type, k.created_at, k.created_at, k.created_at
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
         coalesce((select c.n from counts c where c.event_id = i.id), 0) as r_deliveries
  from input i
  loop
    id := r.r_id;
    known_merchant := r.r_known;
    inserted := r.r_inserted;
    deliveries := r.r_deliveries;
    made := made + r.r_deliveries;
    return next;
  end loop;
  if made > 0 and p_channel is not null then
    perform pg_notify(p_channel, '');
  end if;
end $$;
