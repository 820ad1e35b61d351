import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string | null;
  publishable_key: string;
  publishable_key_hash: Buffer;
  secret_key_hash: Buffer;
  secret_key_last4: string;
  /** Space-separated scopes of the secret key. */
  scopes: string;
  rotated_from: string | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface ApiKeysTables {
  api_keys: ApiKeysTable;
}
