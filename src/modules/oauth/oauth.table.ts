import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export interface OAuthGrantsTable {
  id: string;
  app_id: string;
  merchant_id: string;
  mode: Mode;
  /** Space-separated. */
  scopes: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  last_used_at: Date | null;
  /** The store the installation acts on (migration 0040); null only for a merchant without a store. */
  store_id: string | null;
}

/** A store.redact waiting for its time (migration 0040): one per uninstalled app and merchant. */
export interface OAuthRedactionsTable {
  app_id: string;
  merchant_id: string;
  mode: Mode;
  grant_id: string;
  store_id: string | null;
  uninstalled_at: Date;
  due_at: Date;
}

export interface OAuthConsentsTable {
  id: string;
  app_id: string;
  merchant_id: string;
  redirect_uri: string;
  scopes: string;
  state: string | null;
  code_challenge: string;
  expires_at: Date;
}

export interface OAuthCodesTable {
  hash: Buffer;
  grant_id: string;
  app_id: string;
  merchant_id: string;
  mode: Mode;
  redirect_uri: string;
  scopes: string;
  code_challenge: string;
  family_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: Date | null;
}

export interface OAuthFamiliesTable {
  id: string;
  grant_id: string;
  created_at: Generated<Date>;
}

export type TokenKind = 'access' | 'refresh';

export interface OAuthTokensTable {
  hash: Buffer;
  kind: TokenKind;
  family_id: string;
  grant_id: string;
  app_id: string;
  merchant_id: string;
  mode: Mode;
  scopes: string;
  created_at: Generated<Date>;
  expires_at: Date;
  rotated_at: Date | null;
  child_access: Buffer | null;
  child_refresh: Buffer | null;
  /** A sibling branch (migration 0013): the hash of the refresh token it branches from. */
  branch_of: Buffer | null;
  /** Of a branched refresh token: the hash of the access token issued with it. */
  twin_access: Buffer | null;
  /** A sibling revoked by the first refresh of another: a tombstone, reuse when presented. */
  revoked_at: Date | null;
  /** Of a DPoP-bound access token (migration 0152): its key's RFC 7638 thumbprint. */
  jkt: Generated<string | null>;
}

/** An app token (migration 0150): client_credentials, for the app's own resources. */
export interface OAuthAppTokensTable {
  hash: Buffer;
  app_id: string;
  /** The app's owner. */
  merchant_id: string;
  mode: Mode;
  created_at: Date;
  expires_at: Date;
  /** DPoP-bound (migration 0152): its key's thumbprint. */
  jkt: string | null;
}

/** A JWT id seen once (migration 0153): a client assertion's (by client id) or a DPoP proof's (by key). */
export interface OAuthJtisTable {
  issuer: string;
  jti: string;
  expires_at: Date;
}

/** An access token of a removed installation (migration 0161): whose app it was, until an hour past its expiry. */
export interface OAuthRetiredTokensTable {
  hash: Buffer;
  app_id: string;
  grant_id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string | null;
  retired_at: Date;
  expires_at: Date;
}

export interface OAuthTables {
  oauth_app_tokens: OAuthAppTokensTable;
  oauth_jtis: OAuthJtisTable;
  oauth_grants: OAuthGrantsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_codes: OAuthCodesTable;
  oauth_families: OAuthFamiliesTable;
  oauth_tokens: OAuthTokensTable;
  oauth_redactions: OAuthRedactionsTable;
  oauth_retired_tokens: OAuthRetiredTokensTable;
}
