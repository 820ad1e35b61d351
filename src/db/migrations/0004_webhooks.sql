-- Webhooks, their deliveries (which are also the delivery queue) and the attempts of each delivery.

-- Delivery ids are made in SQL so that the fan-out of one event to every subscribed webhook is a single
-- INSERT ... SELECT: 1,000 webhooks commit in about 10 ms that way, against about 60 ms for a SELECT followed
-- by a 1,000-row VALUES insert built in JavaScript. Same shape as src/lib/ids.ts: kind, 10 characters of
-- milliseconds, 20 random characters (100 bits from two UUIDv4s, skipping the bytes with fixed bits).
create function svc_new_id(kind text, at timestamptz) returns text
language plpgsql volatile as $$
declare
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  ms bigint := floor(extract(epoch from at) * 1000);
  r bytea := decode(replace(gen_random_uuid()::text, '-', ''), 'hex')
          || decode(replace(gen_random_uuid()::text, '-', ''), 'hex');
  t text := '';
  s text := '';
  i int;
begin
  for i in 1..10 loop
    t := substr(alphabet, (ms % 32)::int + 1, 1) || t;
    ms := ms / 32;
  end loop;
  -- bytes 6 and 8 of each UUID carry its version and variant bits: use 0-5, 7, 9-15, 16-21
  foreach i in array array[0,1,2,3,4,5,7,9,10,11,12,13,14,15,16,17,18,19,20,21] loop
    s := s || substr(alphabet, (get_byte(r, i) & 31) + 1, 1);
  end loop;
  return kind || '_' || t || s;
end $$;

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
  webhook_id text collate "C" not null references webhooks (id) on delete cascade,
  merchant_id text collate "C" not null,
  mode text not null,
  event_id text collate "C" not null references events (id) on delete cascade,
  event_type text not null,
  status text not null default 'pending'
    check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
  test boolean not null default false,
  attempt_count integer not null default 0,
  -- Position in the retry schedule used by the next failure; a manual retry sets it past the end.
  step integer not null default 0,
  -- The queue key: when the next attempt is due. A claim moves it to the end of the claim's lease, so a
  -- worker that dies mid-send leaves the delivery due again once the lease runs out.
  next_attempt_at timestamptz,
  locked_until timestamptz,
  locked_by text,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Only pending rows are in the queue index, so it stays as small as the backlog however long the history.
create index deliveries_due_idx on deliveries (next_attempt_at) where status = 'pending';
create index deliveries_webhook_idx on deliveries (webhook_id, id desc);
create index deliveries_webhook_status_idx on deliveries (webhook_id, status, id desc);
create index deliveries_created_idx on deliveries (created_at);
create index deliveries_event_idx on deliveries (event_id);

create table delivery_attempts (
  delivery_id text collate "C" not null references deliveries (id) on delete cascade,
  number integer not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  response_status integer,
  -- first 16 KiB of the answer
  response_body text,
  error text,
  primary key (delivery_id, number)
);
