-- Sign-in security (API.md section 11.3): second factors of a user (TOTP and passkeys), its recovery codes, the
-- step-up window of a session, and a merchant's requirement of a second factor for every member.

-- TOTP: the secret is sealed under the master key (src/master-keys.ts). `totp_pending_sealed` holds a secret
-- being enrolled until a code confirms it; `totp_last_step` is the last 30-second step whose code was accepted,
-- so that a code is never accepted twice. `has_factor` (a confirmed TOTP or at least one passkey) is read with
-- every session, so that the step-up and require-MFA checks cost no extra query.
alter table users add column totp_sealed text;
alter table users add column totp_pending_sealed text;
alter table users add column totp_last_step bigint;
alter table users add column has_factor boolean not null default false;

-- Ten single-use codes per user, stored as SHA-256 (each carries 60 random bits): a use stamps `used_at`.
create table recovery_codes (
  user_id text collate "C" not null references users (id) on delete cascade,
  code_hash bytea not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);

create table passkeys (
  id text collate "C" primary key,
  user_id text collate "C" not null references users (id) on delete cascade,
  -- the authenticator's credential id, base64url
  credential_id text collate "C" not null unique,
  public_key bytea not null,
  counter bigint not null default 0,
  transports text,
  name text not null,
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index passkeys_user_idx on passkeys (user_id);

-- WebAuthn challenges, each answered once, within a few minutes.
create table webauthn_challenges (
  challenge text collate "C" primary key,
  -- null for a sign-in with a passkey alone, where the user is not known until the answer
  user_id text collate "C",
  purpose text not null check (purpose in ('register', 'assert')),
  expires_at timestamptz not null
);

-- When a factor was last verified in this session: the step-up window runs from here.
alter table sessions add column stepped_up_at timestamptz;

alter table merchants add column require_mfa boolean not null default false;
