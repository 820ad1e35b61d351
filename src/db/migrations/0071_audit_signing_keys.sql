-- The public halves of the audit checkpoints' signing keys (API.md section 11.5): every process records the
-- keys it starts with, and every process publishes the keys of its configuration and all those recorded here
-- (src/modules/audit/signing-keys.service.ts). So a key that ever signed a checkpoint stays in the JWKS after
-- any rotation, whether the keys are configured (SVC_AUDIT_SIGNING_KEYS, `audit-signing.key`) or derived from
-- the master keys, which a rotation replaces. Public material only: `x` is the RFC 8037 public key, and the
-- `kid` its RFC 7638 thumbprint, as the JWKS shows them.
create table audit_signing_keys (
  kid text collate "C" primary key,
  x text collate "C" not null,
  -- When a process first started with the key.
  recorded_at timestamptz not null
);
