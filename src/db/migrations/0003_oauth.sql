-- OAuth apps (API.md section 3) and the authorization server's state (section 5): grants, pending consents,
-- codes, token families and tokens. Deleting an app or a grant cascades down to every code and token, so
-- "stops working at once" is one DELETE plus a cache signal.

create table oauth_apps (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  client_id text collate "C" not null unique,
  name text not null,
  description text,
  -- JSON array of strings, compared by exact string at authorize and token time.
  redirect_uris text not null,
  -- space-separated, as OAuth writes scopes
  allowed_scopes text not null,
  secret_hash bytea not null,
  secret_last4 text not null,
  previous_secret_hash bytea,
  previous_secret_expires_at timestamptz,
  -- A rotation without grace sets this: codes and tokens made before it no longer verify, with no scan.
  tokens_valid_after timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index oauth_apps_page_idx on oauth_apps (merchant_id, mode, id desc);

-- One row per (app, merchant that installed it).
create table oauth_grants (
  id text collate "C" primary key,
  app_id text collate "C" not null references oauth_apps (id) on delete cascade,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  scopes text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz,
  unique (app_id, merchant_id)
);
create index oauth_grants_merchant_idx on oauth_grants (merchant_id, id desc);

-- An authorization request waiting for the merchant's decision.
create table oauth_consents (
  id text collate "C" primary key,
  app_id text collate "C" not null references oauth_apps (id) on delete cascade,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  redirect_uri text not null,
  scopes text not null,
  state text,
  code_challenge text not null,
  expires_at timestamptz not null
);
create index oauth_consents_expires_idx on oauth_consents (expires_at);

create table oauth_codes (
  hash bytea primary key,
  grant_id text collate "C" not null references oauth_grants (id) on delete cascade,
  app_id text collate "C" not null,
  merchant_id text collate "C" not null,
  mode text not null,
  redirect_uri text not null,
  scopes text not null,
  code_challenge text not null,
  -- the family its tokens will belong to, so that a second use revokes exactly them
  family_id text collate "C" not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index oauth_codes_grant_idx on oauth_codes (grant_id);
create index oauth_codes_expires_idx on oauth_codes (expires_at);

-- Every token issued from one code, through all its refresh rotations.
create table oauth_families (
  id text collate "C" primary key,
  grant_id text collate "C" not null references oauth_grants (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index oauth_families_grant_idx on oauth_families (grant_id);

-- Access and refresh tokens, by SHA-256. The columns a bearer check and a refresh need are copied onto the
-- row, so each is one primary-key lookup. Indexes are kept to three: each one is written twice per refresh.
create table oauth_tokens (
  hash bytea primary key,
  kind text not null check (kind in ('access', 'refresh')),
  family_id text collate "C" not null references oauth_families (id) on delete cascade,
  grant_id text collate "C" not null,
  app_id text collate "C" not null,
  merchant_id text collate "C" not null,
  mode text not null,
  scopes text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- refresh tokens: when it was used, and the pair that use issued (revoked if it is presented again in grace)
  rotated_at timestamptz,
  child_access bytea,
  child_refresh bytea
);
create index oauth_tokens_family_idx on oauth_tokens (family_id);
create index oauth_tokens_expires_idx on oauth_tokens (expires_at);
