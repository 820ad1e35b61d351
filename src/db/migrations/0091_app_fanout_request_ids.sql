-- svc_record_events with both of its later parts: the app fan-out of migration 0041 and the event's request_id
-- of migration 0081, which redefined the function from its earlier body (0019) and so dropped the fan-out.
-- Nothing else changed; see 0041 for who receives an event.
create or replace function svc_record_events(p_events jsonb, p_channel text)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
declare
  r record;
  made integer := 0;
begin
  for r in
  with input as (
    select x.id, x.merchant_id, x.mode, x.type, x.payload, x.created_at, x.id_prefix, x.request_id,
           x.to_merchant, x.to_installed, x.app_id, x.grant_id, x.store_id
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text,
      request_id text, to_merchant boolean, to_installed text, app_id text, grant_id text, store_id text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at, request_id)
    select k.id, k.merchant_id, k.mode, k.type, k.payload, k.created_at, k.request_id from known k
    on conflict on constraint events_pkey do nothing
    returning e.id
  ), recorded as (
    select k.* from known k join ev on ev.id = k.id
  ), targets as (
    select k.id as event_id, k.type, k.created_at, k.id_prefix, w.id as webhook_id, w.merchant_id, w.mode,
           w.kind, null::text as grant_id, null::text as store_id
    from recorded k
    join webhooks w
      on w.merchant_id = k.merchant_id and w.mode = k.mode and w.app_id is null and w.status = 'enabled'
     and w.deleted_at is null and k.type = any (w.events)
    where k.to_merchant
    union all
    select k.id, k.type, k.created_at, k.id_prefix, w.id, w.merchant_id, w.mode, w.kind, g.id, g.store_id
    from recorded k
    join oauth_grants g on g.merchant_id = k.merchant_id and g.mode = k.mode
    join webhooks w
      on w.app_id = g.app_id and w.mode = k.mode and w.status = 'enabled' and w.deleted_at is null
     and k.type = any (w.events)
    where k.to_installed = 'any'
       or (k.to_installed = 'read' and g.scopes ~ '(^| )public:(read|\*)( |$)'
           and exists (select 1 from oauth_apps a
                       where a.id = g.app_id and a.allowed_scopes ~ '(^| )public:(read|\*)( |$)'))
    union all
    select k.id, k.type, k.created_at, k.id_prefix, w.id, w.merchant_id, w.mode, w.kind, k.grant_id, k.store_id
    from recorded k
    join webhooks w
      on w.app_id = k.app_id and w.mode = k.mode and w.status = 'enabled' and w.deleted_at is null
     and k.type = any (w.events)
    where k.app_id is not null
  ), dl as (
    -- Delivery ids: the caller's time prefix (src/lib/ids.ts) and 96 bits from a v4 UUID (migration 0004).
    insert into deliveries as d
      (id, webhook_id, merchant_id, mode, event_id, event_type, grant_id, store_id, next_attempt_at,
       created_at, updated_at)
    select t.id_prefix || substr(md5(gen_random_uuid()::text), 1, 24), t.webhook_id, t.merchant_id, t.mode,
           t.event_id, t.type, t.grant_id, t.store_id,
           case when t.kind = 'listener' then null else t.created_at end, t.created_at, t.created_at
    from targets t
    returning d.event_id, d.next_attempt_at
  ), counts as (
    select dl.event_id, count(*)::int as n from dl where dl.next_attempt_at is not null group by dl.event_id
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
