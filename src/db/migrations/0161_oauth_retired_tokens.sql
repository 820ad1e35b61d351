-- Access tokens of a removed installation, kept by their hash (owned by the oauth module): a disconnection
-- deletes the grant and its tokens, and a call made afterwards with one of them would name nobody. Written
-- in the disconnecting transaction, one row per access token of the grant, and purged with expired tokens
-- an hour after the token's own expiry. Read only when a presented access token is not found, so that the
-- refused call is recorded for the app's owner (API.md section 12.3, docs/decisions/0156-refused-app-calls.md).
create table oauth_retired_tokens (
  hash bytea primary key,
  app_id text collate "C" not null,
  grant_id text collate "C" not null,
  merchant_id text collate "C" not null,
  mode text not null,
  store_id text collate "C",
  retired_at timestamptz not null,
  expires_at timestamptz not null
);
create index oauth_retired_tokens_expires_idx on oauth_retired_tokens (expires_at);
