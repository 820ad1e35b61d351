-- Merchants, their users, stores and sessions; the audit log; the event outbox.
-- Ids are time-sortable text (src/lib/ids.ts) compared in the "C" collation, so ordering by id is ordering
-- by creation time and a cursor is a primary-key range.

create table merchants (
  id text collate "C" primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table users (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  email text not null,
  password_hash text not null,
  role text not null default 'owner',
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_merchant_idx on users (merchant_id);

create table stores (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  name text not null,
  created_at timestamptz not null default now()
);
create index stores_merchant_idx on stores (merchant_id, id);

create table sessions (
  id text collate "C" primary key,
  token_hash bytea not null unique,
  user_id text collate "C" not null references users (id) on delete cascade,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_expires_idx on sessions (expires_at);

create table audit_logs (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  action text collate "C" not null,
  -- `webhook.*` filters are an equality on the family, served by an index like any exact filter.
  family text collate "C" generated always as (split_part(action, '.', 1)) stored,
  entity_type text collate "C" not null,
  entity_id text collate "C" not null,
  metadata text not null,
  created_at timestamptz not null default now()
);
-- Every page is "newest first within one merchant and mode", optionally narrowed by one filter: each index
-- below ends in id so a page is one index range scan of `limit` rows, however many entries there are.
create index audit_logs_page_idx on audit_logs (merchant_id, mode, id desc);
create index audit_logs_family_idx on audit_logs (merchant_id, mode, family, id desc);
create index audit_logs_action_idx on audit_logs (merchant_id, mode, action, id desc);
create index audit_logs_entity_idx on audit_logs (merchant_id, mode, entity_id, id desc);
create index audit_logs_entity_type_idx on audit_logs (merchant_id, mode, entity_type, id desc);

-- The outbox: an event is written in the transaction of the change it announces. `payload` is the delivery
-- body, serialised once, so every attempt sends (and signs) the same bytes.
create table events (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  type text not null,
  payload text not null,
  created_at timestamptz not null default now()
);
create index events_merchant_idx on events (merchant_id, mode, id desc);
create index events_created_idx on events (created_at);
