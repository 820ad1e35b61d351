-- App webhooks (API.md section 11.1): a webhook may belong to an app of its merchant (`app_id`), and then
-- receives the events of every merchant that installed the app in its mode. The fan-out stays one statement
-- (svc_record_events): the event, the merchant's own deliveries and the installed apps' deliveries together.

alter table webhooks add column app_id text collate "C";
-- The fan-out reaches an app's webhooks by app: one short range per installed app, however many webhooks
-- other apps or merchants have.
create index webhooks_app_idx on webhooks (app_id, mode) where app_id is not null and deleted_at is null;

-- An app delivery names the installation it was made for, so that its body (the event's payload plus
-- app_id, grant_id and store_id) is the same on every attempt, even after an uninstall: composed at send time
-- from the stored event and these two columns (src/modules/webhooks/delivery-body.ts). Null for a merchant's
-- own deliveries, which send the event's payload as it is.
alter table deliveries add column grant_id text collate "C", add column store_id text collate "C";

drop function svc_record_events(jsonb, text);

-- Who receives an event, given per event by the caller (src/modules/webhooks/outbox.service.ts):
-- - `to_merchant`: the merchant's own enabled webhooks subscribed to the type (app webhooks excluded: an app
--   owner's own events never reach its app unless it installed the app itself);
-- - `to_installed` ('read' or 'any'): the subscribed webhooks of every app with a grant by the merchant in the
--   mode; with 'read' only while the grant's effective scopes (granted, within the app's allowed scopes)
--   include reading. The grants are read here, in the statement, so a new install, a scope change or an
--   uninstall holds for the very next event on every process, with no cache to invalidate.
-- - `app_id` (with `grant_id`, `store_id`): the subscribed webhooks of that one app, for an event about one
--   installation (lifecycle events, store.redact), which may be gone already (uninstalled).
-- A webhook of kind `listener` (an app's `svc listen` stream) gets its delivery with no due time: its stream
-- sends it, no worker claims it (deliveries_due_idx holds only rows with next_attempt_at set). `deliveries`
-- counts the deliveries due to real endpoints.
create function svc_record_events(p_events jsonb, p_channel text)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
declare
  r record;
  made integer := 0;
begin
  for r in
  with input as (
    select x.id, x.merchant_id, x.mode, x.type, x.payload, x.created_at, x.id_prefix, x.to_merchant,
           x.to_installed, x.app_id, x.grant_id, x.store_id
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text,
      to_merchant boolean, to_installed text, app_id text, grant_id text, store_id text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at)
    select k.id, k.merchant_id, k.mode, k.type, k.payload, k.created_at from known k
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
