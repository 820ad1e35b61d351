-- A merchant is a team (API.md section 11.2). A user is one person, one email across merchants; it belongs to
-- merchants through memberships, each with its role; a session belongs to one membership, so that removing a
-- member deletes its sessions in the same statement (the foreign key's cascade), whichever process reads them
-- next. Every user of the one-login era becomes the owner of its merchant.

create table memberships (
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  user_id text collate "C" not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  joined_at timestamptz not null default now(),
  -- The last use of one of its sessions, written in batches (src/modules/merchants/sessions.service.ts): sign-in
  -- opens the membership used last.
  last_active_at timestamptz,
  primary key (merchant_id, user_id)
);
create index memberships_user_idx on memberships (user_id, last_active_at desc);

insert into memberships (merchant_id, user_id, role, joined_at)
  select merchant_id, id, 'owner', created_at from users;

alter table users drop column merchant_id;
alter table users drop column role;
alter table users add column name text;

-- Where and when each session was opened and last used, for the user's list of sessions. `last_used_at` is
-- written in batches, never per request.
alter table sessions add column ip text;
alter table sessions add column user_agent text;
alter table sessions add column last_used_at timestamptz;
alter table sessions add constraint sessions_membership_fkey foreign key (merchant_id, user_id)
  references memberships (merchant_id, user_id) on delete cascade;
create index sessions_user_idx on sessions (user_id);
