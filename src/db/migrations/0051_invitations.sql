-- The members module's invitations (API.md section 11.2), beside the memberships of migration 0050.

-- Invitations: the token (`svc_inv_`) is stored as its SHA-256 only; a row is pending while it is neither
-- accepted, withdrawn nor expired, and kept afterwards so that a second use answers like an unknown token.
create table invitations (
  id text collate "C" primary key,
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  token_hash bytea not null unique,
  -- the inviting user: no foreign key, an invitation outlives its inviter's membership
  invited_by text collate "C" not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by text collate "C",
  withdrawn_at timestamptz
);
create index invitations_merchant_idx on invitations (merchant_id, id desc);
