-- The outbox write with all of its parts in one definition: the sequence and per-object ordering of migration
-- 0060 (svc_record_sequenced_events, a new name, as 0081's `create or replace` of svc_record_events would have
-- undone a redefinition made before it), the app fan-out (the columns of 0041) and the request id of 0081. The
-- older function is dropped here, unused.
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
-- A delivery of a per_object webhook, a merchant's or an app's, carries the event's ordering key and its place
-- (twice the event's sequence, which is the recording merchant's: a key belongs to one merchant's object).
drop function svc_record_events(jsonb, text);

create or replace function svc_record_sequenced_events(p_events jsonb, p_channel text)
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
           x.ordering_key, x.to_merchant, x.to_installed, x.app_id, x.grant_id, x.store_id
    from jsonb_to_recordset(p_events) as x(
      id text, merchant_id text, mode text, type text, payload text, created_at timestamptz, id_prefix text,
      request_id text, ordering_key text, to_merchant boolean, to_installed text, app_id text, grant_id text,
      store_id text)
  ), known as (
    select i.* from input i where exists (select 1 from merchants m where m.id = i.merchant_id)
  ), fresh as (
    select k.*, count(*) over (partition by k.merchant_id, k.mode) as cnt,
           row_number() over (partition by k.merchant_id, k.mode order by k.created_at, k.id) as rn
    from known k where not exists (select 1 from events e where e.id = k.id)
  ), counter as (
    insert into event_sequences as s (merchant_id, mode, last)
    select f.merchant_id, f.mode, max(f.cnt) from fresh f group by f.merchant_id, f.mode
    order by f.merchant_id collate "C", f.mode collate "C"
    on conflict (merchant_id, mode) do update set last = s.last + excluded.last
    returning s.merchant_id, s.mode, s.last
  ), ev as (
    insert into events as e (id, merchant_id, mode, type, payload, created_at, request_id, sequence)
    select f.id, f.merchant_id, f.mode, f.type, svc_sequenced(f.payload, c.last - f.cnt + f.rn),
           f.created_at, f.request_id, c.last - f.cnt + f.rn
    from fresh f join counter c on c.merchant_id = f.merchant_id and c.mode = f.mode
    on conflict on constraint events_pkey do nothing
    returning e.id, e.sequence
  ), recorded as (
    select k.*, ev.sequence from known k join ev on ev.id = k.id
  ), targets as (
    select k.id as event_id, k.type, k.created_at, k.id_prefix, k.ordering_key, k.sequence, w.id as webhook_id,
           w.merchant_id, w.mode, w.kind, w.ordering, null::text as grant_id, null::text as store_id
    from recorded k
    join webhooks w
      on w.merchant_id = k.merchant_id and w.mode = k.mode and w.app_id is null and w.status = 'enabled'
     and w.deleted_at is null and k.type = any (w.events)
    where k.to_merchant
    union all
    select k.id, k.type, k.created_at, k.id_prefix, k.ordering_key, k.sequence, w.id, w.merchant_id, w.mode,
           w.kind, w.ordering, g.id, g.store_id
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
    select k.id, k.type, k.created_at, k.id_prefix, k.ordering_key, k.sequence, w.id, w.merchant_id, w.mode,
           w.kind, w.ordering, k.grant_id, k.store_id
    from recorded k
    join webhooks w
      on w.app_id = k.app_id and w.mode = k.mode and w.status = 'enabled' and w.deleted_at is null
     and k.type = any (w.events)
    where k.app_id is not null
  ), dl as (
    -- Delivery ids: the caller's time prefix (src/lib/ids.ts) and 96 bits from a v4 UUID (migration 0004).
    insert into deliveries as d
      (id, webhook_id, merchant_id, mode, event_id, event_type, grant_id, store_id, next_attempt_at,
       created_at, updated_at, ordering_key, ordering_seq)
    select t.id_prefix || substr(md5(gen_random_uuid()::text), 1, 24), t.webhook_id, t.merchant_id, t.mode,
           t.event_id, t.type, t.grant_id, t.store_id,
           case when t.kind = 'listener' then null else t.created_at end, t.created_at, t.created_at,
           case when t.ordering = 'per_object' then t.ordering_key end,
           case when t.ordering = 'per_object' and t.ordering_key is not null then 2 * t.sequence end
    from targets t
    returning d.event_id, d.next_attempt_at
  ), counts as (
    select dl.event_id, count(*)::int as n from dl where dl.next_attempt_at is not null group by dl.event_id
  )
  select i.id as r_id,
         exists (select 1 from known k where k.id = i.id) as r_known,
         exists (select 1 from ev where ev.id = i.id) as r_inserted,
         exists (select 1 from fresh f where f.id = i.id) as r_fresh,
         coalesce((select c.n from counts c where c.event_id = i.id), 0) as r_deliveries
  from input i
  loop
    id := r.r_id;
    known_merchant := r.r_known;
    inserted := r.r_inserted;
    deliveries := r.r_deliveries;
    made := made + r.r_deliveries;
    lost := lost or (r.r_fresh and not r.r_inserted);
    return next;
  end loop;
  -- an event counted fresh but not inserted (its id recorded meanwhile by a transaction that committed after
  -- this statement began) would leave a gap in the sequence: fail, and let the caller write the batch again
  if lost then
    raise exception 'an event id of this batch was recorded meanwhile' using errcode = '40001';
  end if;
  if made > 0 and p_channel is not null then
    perform pg_notify(p_channel, '');
  end if;
end $$;
