-- Installations (API.md section 11.1), the oauth module's side: a grant is an installation of an app on a
-- merchant's store, which its events name (`store_id`), and an uninstall leaves a store.redact to record later.

-- The store the installation acts on: the merchant's first store at consent (what the token endpoint names),
-- kept on the grant so that the fan-out reads it with the grant, with no lookup per delivery.
alter table oauth_grants add column store_id text collate "C";
update oauth_grants g
   set store_id = (select s.id from stores s where s.merchant_id = g.merchant_id order by s.id limit 1);

-- An app's installations, newest first (the developer's list and count), without reading other apps' grants.
create index oauth_grants_app_idx on oauth_grants (app_id, id desc);

-- store.redact, scheduled durably: one row per uninstalled (app, merchant), recorded as an event once due by
-- whichever process's sweep takes it (FOR UPDATE SKIP LOCKED), and deleted by a reinstall before that.
create table oauth_redactions (
  app_id text collate "C" not null references oauth_apps (id) on delete cascade,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  grant_id text collate "C" not null,
  store_id text collate "C",
  uninstalled_at timestamptz not null,
  due_at timestamptz not null,
  primary key (app_id, merchant_id)
);
create index oauth_redactions_due_idx on oauth_redactions (due_at);
