import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export interface OAuthAppsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  client_id: string;
  name: string;
  description: string | null;
  /** JSON array of strings. */
  redirect_uris: string;
  /** Space-separated. */
  allowed_scopes: string;
  secret_hash: Buffer;
  secret_last4: string;
  previous_secret_hash: Buffer | null;
  previous_secret_expires_at: Date | null;
  tokens_valid_after: Generated<Date>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface OAuthAppsTables {
  oauth_apps: OAuthAppsTable;
}
