// Row types of the merchants module's tables (src/db/migrations/0001_foundation.sql, 0050_memberships.sql).
import type { Generated } from 'kysely';

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
  /** Every member must have a second factor (API.md section 11.3). */
  require_mfa: Generated<boolean>;
}

export interface StoresTable {
  id: string;
  merchant_id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface MerchantsTables {
  merchants: MerchantsTable;
  stores: StoresTable;
}
