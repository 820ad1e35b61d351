import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

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
  /** How the app authenticates at the token endpoint (migration 0151). */
  token_endpoint_auth_method: Generated<TokenEndpointAuthMethod>;
  /** Its public keys for private_key_jwt: a JWKS as JSON text. */
  jwks: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface OAuthAppsTables {
  oauth_apps: OAuthAppsTable;
}
