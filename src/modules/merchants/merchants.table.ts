// Row types of the merchants module's tables (src/db/migrations/0001_foundation.sql).
import type { Generated } from 'kysely';

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface UsersTable {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  role: Generated<string>;
  created_at: Generated<Date>;
}

export interface StoresTable {
  id: string;
  merchant_id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface SessionsTable {
  id: string;
  token_hash: Buffer;
  user_id: string;
  merchant_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
}

export interface MerchantsTables {
  merchants: MerchantsTable;
  users: UsersTable;
  stores: StoresTable;
  sessions: SessionsTable;
}
