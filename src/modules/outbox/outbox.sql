-- The outbox's functions as the migrations leave them, read in one place: their text is spread over migrations
-- 0004, 0019, 0060, 0081, 0092, 0141 and 0171, which were never rewritten once run (docs/architecture.md). Each
-- definition is as PostgreSQL prints it (pg_get_functiondef), and test/webhooks/outbox-definition.test.ts checks that a
-- migrated database holds exactly these, on PostgreSQL and on PGlite. To change the outbox: add a migration
-- that redefines a function, then copy its new definition here (the test prints it when they differ).
--
-- svc_record_sequenced_events (migrations 0092, 0141): records a batch of events and fans each out to its
-- deliveries in one statement (src/modules/outbox/events.repository.ts calls it), each webhook's payload filter
-- applied and its refusals counted (0141). The comments of migration 0092 say who receives an event
-- (`to_merchant`, `to_installed`, `app_id`), and those of 0060 what the sequence and the per-object ordering add.
--
-- svc_sequenced (migration 0060): the delivery body with its sequence as its last member.
--
-- svc_payload_matches (migrations 0141, 0171): whether a delivery body matches a webhook's payload filter; the
-- comments of 0141 give the semantics of each op, 0171 the same in PL/pgSQL, six times cheaper a call.

CREATE OR REPLACE FUNCTION public.svc_payload_matches(p_filter jsonb, p_body jsonb)
 RETURNS boolean
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
declare
  conds jsonb := coalesce(p_filter -> 'all', p_filter -> 'any');
  any_mode boolean := p_filter ? 'any';
  c jsonb;
  v jsonb;
  x jsonb;
  op text;
  cmp int;
  ok boolean;
begin
  for i in 0 .. coalesce(jsonb_array_length(conds), 0) - 1 loop
    c := conds -> i;
    op := c ->> 'op';
    v := p_body #> string_to_array(c ->> 'path', '.');
    x := c -> 'value';
    if op = 'eq' then ok := v = x;
    elsif op = 'ne' then ok := v is distinct from x;
    elsif op = 'in' then ok := v is not null and x @> jsonb_build_array(v);
    elsif op = 'exists' then ok := (v is not null) = (x = 'true'::jsonb);
    elsif op = 'prefix' then ok := jsonb_typeof(v) = 'string' and starts_with(v #>> '{}', x #>> '{}');
    else
      cmp := case when jsonb_typeof(v) is distinct from jsonb_typeof(x) then null
                  when jsonb_typeof(x) = 'number' then sign(v::numeric - x::numeric)::int
                  when jsonb_typeof(x) = 'string' then
                    case when (v #>> '{}') collate "C" < (x #>> '{}') collate "C" then -1
                         when (v #>> '{}') collate "C" = (x #>> '{}') collate "C" then 0 else 1 end
             end;
      ok := case op when 'gt' then cmp > 0 when 'gte' then cmp >= 0 when 'lt' then cmp < 0
                    when 'lte' then cmp <= 0 end;
    end if;
    ok := coalesce(ok, false);
    if ok = any_mode then return any_mode; end if;
  end loop;
  return not any_mode;
end $function$;

CREATE OR REPLACE FUNCTION public.svc_sequenced(p_payload text, p_sequence bigint)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$ select left(p_payload, -1) || ',"sequence":' || p_sequence::text || '}' $function$;

CREATE OR REPLACE FUNCTION public.svc_record_sequenced_events(p_events jsonb, p_channel text)
 RETURNS TABLE(id text, known_merchant boolean, inserted boolean, deliveries integer)
 LANGUAGE plpgsql
AS $function$
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
           w.merchant_id, w.mode, w.kind, w.ordering, null::text as grant_id, null::text as store_id,
           k.merchant_id as event_merchant_id, k.payload, w.filter, w.app_id
    from recorded k
    join webhooks w
      on w.merchant_id = k.merchant_id and w.mode = k.mode and w.app_id is null and w.status = 'enabled'
     and w.deleted_at is null and k.type = any (w.events)
    where k.to_merchant
    union all
    select k.id, k.type, k.created_at, k.id_prefix, k.ordering_key, k.sequence, w.id, w.merchant_id, w.mode,
           w.kind, w.ordering, g.id, g.store_id, k.merchant_id, k.payload, w.filter, w.app_id
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
           w.kind, w.ordering, k.grant_id, k.store_id, k.merchant_id, k.payload, w.filter, w.app_id
    from recorded k
    join webhooks w
      on w.app_id = k.app_id and w.mode = k.mode and w.status = 'enabled' and w.deleted_at is null
     and k.type = any (w.events)
    where k.app_id is not null
  ), judged as (
    -- A webhook's payload filter, on the body its delivery would send (the sequenced payload, with the
    -- installation for an app webhook, src/modules/delivery/delivery-body.ts), parsed only where there is one.
    select t.*, case when t.filter is null then true
                     else svc_payload_matches(t.filter, case when t.app_id is null then b.body else b.body
                          || jsonb_build_object('app_id', t.app_id, 'grant_id', t.grant_id, 'store_id', t.store_id)
                          end) end as ok
    from targets t
    cross join lateral (select case when t.filter is null then null
                                    else svc_sequenced(t.payload, t.sequence)::jsonb end as body) b
  ), refused as (
    -- what the filters refused, by webhook, hour and the event's merchant (migration 0140)
    insert into webhook_filtered_counts as f (webhook_id, hour, merchant_id, filtered)
    select t.webhook_id, date_bin('1 hour', t.created_at, timestamptz '2000-01-01 00:00:00+00'),
           t.event_merchant_id, count(*)::int
    from judged t where not t.ok
    group by 1, 2, 3
    on conflict (webhook_id, hour, merchant_id) do update set filtered = f.filtered + excluded.filtered
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
    from judged t
    where t.ok
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
end $function$;
