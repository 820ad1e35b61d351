// Row types of the identity module's tables (src/db/migrations/0001_foundation.sql, 0050_memberships.sql, 0170).
import type { Generated } from 'kysely';
import type { Role } from '../../http/roles.ts';

/** A person: one email across every merchant it belongs to. */
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  name: string | null;
  created_at: Generated<Date>;
  /** The confirmed TOTP secret, sealed under the master key; the one being enrolled, until confirmed. */
  totp_sealed: string | null;
  totp_pending_sealed: string | null;
  /** The last 30-second step whose code was accepted: no code is accepted twice. */
  totp_last_step: number | null;
  /** A confirmed TOTP or a passkey: read with every session (step-up, require-MFA). */
  has_factor: Generated<boolean>;
}

/** A user in a merchant, with its role (API.md section 11.2). */
export interface MembershipsTable {
  merchant_id: string;
  user_id: string;
  role: Role;
  joined_at: Generated<Date>;
  last_active_at: Date | null;
}

/** A session of one membership: (merchant_id, user_id) references it, and goes with it. */
export interface SessionsTable {
  id: string;
  token_hash: Buffer;
  user_id: string;
  merchant_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  expires_at: Date;
  /** When a factor was last verified in this session: the step-up window (API.md section 11.3). */
  stepped_up_at: Date | null;
}

/** A single-use recovery code, as its SHA-256. */
export interface RecoveryCodesTable {
  user_id: string;
  code_hash: Buffer;
  used_at: Date | null;
}

export interface PasskeysTable {
  id: string;
  user_id: string;
  /** base64url, as the authenticator gives it. */
  credential_id: string;
  public_key: Buffer;
  counter: number;
  /** JSON array of the authenticator's transports, as registered. */
  transports: string | null;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface WebauthnChallengesTable {
  challenge: string;
  user_id: string | null;
  purpose: 'register' | 'assert';
  expires_at: Date;
}

/** A sign-in failure budget with failures in it (migration 0170): shared by every process. */
export interface SignInFailuresTable {
  scope: 'account' | 'address';
  /** SHA-256 (hex) of the budget's key: an email, an address, a device. */
  key: string;
  failures: number;
  last_failure_ms: string | number;
  blocked_until_ms: string | number;
}

export interface IdentityTables {
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  sign_in_failures: SignInFailuresTable;
}
