// Row types of the merchants module's tables (src/db/migrations/0001_foundation.sql, 0050_memberships.sql).
import type { Generated } from 'kysely';
import type { Role } from '../../http/roles.ts';

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

/** A person: one email across every merchant it belongs to. */
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  name: string | null;
  created_at: Generated<Date>;
}

/** A user in a merchant, with its role (API.md section 11.2). */
export interface MembershipsTable {
  merchant_id: string;
  user_id: string;
  role: Role;
  joined_at: Generated<Date>;
  last_active_at: Date | null;
}

export interface StoresTable {
  id: string;
  merchant_id: string;
  name: string;
  created_at: Generated<Date>;
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
}

export interface MerchantsTables {
  merchants: MerchantsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  stores: StoresTable;
  sessions: SessionsTable;
}
