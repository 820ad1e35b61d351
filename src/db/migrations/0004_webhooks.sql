-- Webhooks, their deliveries (which are also the delivery queue) and the attempts of each delivery.

create table webhooks (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  url text not null,
  events text[] not null,
  description text,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  disabled_reason text,
  -- AES-256-GCM under SVC_MASTER_KEY (src/lib/secrets.ts); the previous secret signs too until it expires.
  secret_sealed text not null,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  -- Start of the current run of failed attempts (test deliveries excluded); null after any success.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index webhooks_page_idx on webhooks (merchant_id, mode, id desc) where deleted_at is null;

create table deliveries (
  id text collate "C" primary key,
  -- No foreign keys on webhook_id and event_id: their per-row checks were 35 of the 100 ms that fanning one
  -- event out to 1,000 webhooks took here. Deliveries are only ever made from an existing event and webhook
  -- (events.repository.ts), webhooks are deleted softly, and the purge removes deliveries before their
  -- webhook and event (purge-expired.repository.ts).
  webhook_id text collate "C" not null,
  merchant_id text collate "C" not null,
  mode text not null,
  event_id text collate "C" not null,
  event_type text not null,
  status text not null default 'pending'
    check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
  test boolean not null default false,
  attempt_count integer not null default 0,
  -- Position in the retry schedule used by the next failure; a manual retry sets it past the end.
  step integer not null default 0,
  -- The queue key: when the next attempt is due.
  next_attempt_at timestamptz,
  -- The lease of the worker sending it: claimable again once it runs out (a worker died mid-send).
  locked_until timestamptz,
  locked_by text,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
) with (
  -- room on each page for the claims' HOT updates (they change no indexed column)
  fillfactor = 70,
  -- A queue table: finished rows leave the due index only when vacuumed, and claims plan on fresh
  -- statistics, so vacuum and analyze after 2% of changes rather than the default 20%.
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02
);
-- Only pending rows are in the queue index, so it stays as small as the backlog however long the history.
create index deliveries_due_idx on deliveries (next_attempt_at) where status = 'pending';
-- Three indexes in all: each one more cost about 10 ms on the 1,000-row fan-out, and an index entry on
-- every insert and every recorded outcome. Lists by status filter the webhook's range; the purge bounds
-- ids by time (ids begin with their creation time).
create index deliveries_webhook_idx on deliveries (webhook_id, id desc);

-- Nothing lists events by merchant (deliveries are listed per webhook): one index less to write per event.
drop index if exists events_merchant_idx;

-- No foreign key either: attempts are written only for deliveries the same statement just updated
-- (record-outcomes.repository.ts), and the purge deletes them with their delivery.
create table delivery_attempts (
  delivery_id text collate "C" not null,
  number integer not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  response_status integer,
  -- first 16 KiB of the answer
  response_body text,
  error text,
  primary key (delivery_id, number)
);

-- The outbox write of one event as a function: PL/pgSQL keeps the plans of its statements per connection,
-- which spares the ~0.3 ms of planning that the same SQL sent as text paid on every event. The event, then
-- one delivery per enabled webhook of the merchant and mode subscribed to the type, in a single INSERT ...
-- SELECT. Delivery ids: the caller's time prefix (src/lib/ids.ts, `dlv_` + 10 characters of milliseconds)
-- and 24 hex characters (96 bits) from a v4 UUID, which uses the server's strong random source; a
-- PL/pgSQL id function building base32 characters one by one cost 50 ms per 1,000 rows.
create function svc_record_event(
  p_id text, p_merchant text, p_mode text, p_type text, p_payload text, p_at timestamptz,
  p_id_prefix text, p_channel text
) returns table (inserted boolean, deliveries integer)
language plpgsql as $$
declare
  n integer;
begin
  insert into events (id, merchant_id, mode, type, payload, created_at)
  values (p_id, p_merchant, p_mode, p_type, p_payload, p_at)
  on conflict (id) do nothing;
  if not found then
    return query select false, 0;
    return;
  end if;
  insert into deliveries
    (id, webhook_id, merchant_id, mode, event_id, event_type, next_attempt_at, created_at, updated_at)
  select p_id_prefix || substr(md5(gen_random_uuid()::text), 1, 24), w.id, w.merchant_id, w.mode, p_id,
         p_type, p_at, p_at, p_at
  from webhooks w
  where w.merchant_id = p_merchant and w.mode = p_mode and w.status = 'enabled' and w.deleted_at is null
    and p_type = any (w.events);
  get diagnostics n = row_count;
  if n > 0 and p_channel is not null then
    perform pg_notify(p_channel, '');
  end if;
  return query select true, n;
end $$;

-- The same for a batch of events (a JSON array), in one statement: what the ingestion route uses to write
-- the events of concurrent requests together (src/modules/events/ingest-batcher.ts). Events of unknown
-- merchants are left out and reported (known_merchant false) rather than failing the whole batch.
create function svc_record_events(p_events jsonb)
returns table (id text, known_merchant boolean, inserted boolean, deliveries integer)
language plpgsql as $$
begin
  return query
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
  select i.id,
         exists (select 1 from known k where k.id = i.id),
         exists (select 1 from ev where ev.id = i.id),
         coalesce((select c.n from counts c where c.event_id = i.id), 0)
  from input i;
end $$;
