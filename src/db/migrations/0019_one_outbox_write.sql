-- One outbox write for one event and for many: svc_record_event (one event) and svc_record_events (a batch,
-- migration 0004) were two copies of the same fan-out, and only the batch one left out unknown merchants.
-- Now a single function of the webhooks module, which owns events, deliveries and webhooks alike
-- (src/modules/webhooks/events.repository.ts); a caller with one event passes an array of one.
-- `p_channel`: when set, a NOTIFY on it (delivered by PostgreSQL at commit) once the statement made any
-- delivery, for callers that write inside their own transaction (the cart sweep, a triggered event); the
-- ingestion route passes null and wakes the workers itself after its autocommitted batch.
drop function svc_record_event(text, text, text, text, text, timestamptz, text, text);
drop function svc_record_events(jsonb);

create function svc_record_events(p_events jsonb, p_channel text)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
declare
  r record;
  made integer := 0;
begin
  for r in
  with input as (
    select x.id, x.merchant_id, x.mode, x.type, x.payload, x.created_at, x.id_prefix
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at)
    select k.id, k.merchant_id, k.mode, k.type, k.payload, k.created_at from known k
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
