-- Key pairs (API.md section 4), carts of the public interface (section 6) and the idempotency store of
-- public POSTs (section 1).

create table api_keys (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  name text,
  -- The publishable key is browser-safe and always readable, so it is kept in clear; both keys are looked
  -- up by their SHA-256 so that the two kinds verify the same way.
  publishable_key text not null,
  publishable_key_hash bytea not null unique,
  secret_key_hash bytea not null unique,
  secret_key_last4 text not null,
  -- Space-separated, as OAuth writes scopes: a plain text column reads the same on both drivers.
  scopes text not null,
  rotated_from text collate "C" references api_keys (id) on delete set null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_page_idx on api_keys (merchant_id, mode, id desc);

-- Revocation and rotation announce themselves from their use case (src/modules/api-keys). A deleted row has
-- no use case (a merchant's cascade, an operator's SQL), so the database announces it: every process drops
-- the key from its verification cache at commit.
create function api_keys_announce_delete() returns trigger language plpgsql as $$
begin
  perform pg_notify('svc_api_keys', old.id);
  return old;
end;
$$;
create trigger api_keys_deleted after delete on api_keys
  for each row execute function api_keys_announce_delete();

create table carts (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  store_id text collate "C" not null references stores (id) on delete cascade,
  status text not null default 'active' check (status in ('active', 'abandoned')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index carts_page_idx on carts (merchant_id, mode, id desc);
-- The abandonment sweep reads only active carts, oldest activity first.
create index carts_active_idx on carts (updated_at) where status = 'active';

create table idempotency_keys (
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  key text collate "C" not null,
  -- SHA-256 of method, path and body: the same key with anything different is a conflict.
  fingerprint bytea not null,
  -- Null while the first request runs; then the stored answer.
  response_status integer,
  response_type text,
  response_body text,
  -- A first request whose process died never completes: after this its key may be taken over.
  locked_until timestamptz not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (merchant_id, mode, key)
);
create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
