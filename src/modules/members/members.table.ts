// Row types of the members module's table (src/db/migrations/0050_memberships.sql, 0051_invitations.sql and 0186). Memberships themselves are
// the merchants module's (docs/decisions/0120-users-memberships-sessions.md).
import type { Role } from '../../http/roles.ts';

export interface InvitationsTable {
  id: string;
  merchant_id: string;
  email: string;
  role: Role;
  token_hash: Buffer;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  withdrawn_at: Date | null;
  /** The newer invitation to the same address that replaced this one (migration 0186). */
  replaced_by: string | null;
}

export interface MembersTables {
  invitations: InvitationsTable;
}
