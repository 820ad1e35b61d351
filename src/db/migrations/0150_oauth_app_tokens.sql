-- App tokens (API.md section 12.3): what grant_type=client_credentials issues to an app, for the app's own
-- resources (its installations), never a store's data. No grant, family or refresh token: a row per token,
-- gone with its app (the cascade) and purged past its expiry by the oauth purge, as the other tokens.
create table oauth_app_tokens (
  hash bytea primary key,
  app_id text collate "C" not null references oauth_apps (id) on delete cascade,
  -- the app's owner, whose request log records the calls made with it
  merchant_id text collate "C" not null,
  mode text not null check (mode in ('test', 'live')),
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index oauth_app_tokens_expires_idx on oauth_app_tokens (expires_at);
create index oauth_app_tokens_app_idx on oauth_app_tokens (app_id);
