// Row types of every table, composed from each module's `*.table.ts`. Kysely checks every query against them.
import type { Generated } from 'kysely';
import type { Mode } from '../lib/credentials.ts';
import type { OAuthAppsTables } from '../modules/oauth-apps/oauth-apps.table.ts';
import type { OAuthTables } from '../modules/oauth/oauth.table.ts';
import type { ApiKeysTables } from '../modules/api-keys/api-keys.table.ts';
import type { CartsTables } from '../modules/carts/carts.table.ts';
import type { IdempotencyTables } from '../http/idempotency.table.ts';
import type { WebhooksTables } from '../modules/webhooks/webhooks.table.ts';

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

export interface AuditLogsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  action: string;
  family: Generated<string>;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: Date;
}

export interface AuditCountsTable {
  merchant_id: string;
  mode: Mode;
  key: string;
  shard: number;
  n: number;
}

export interface EventsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  type: string;
  payload: string;
  created_at: Date;
}

export interface FoundationTables {
  merchants: MerchantsTable;
  users: UsersTable;
  stores: StoresTable;
  sessions: SessionsTable;
  audit_logs: AuditLogsTable;
  audit_counts: AuditCountsTable;
  events: EventsTable;
}

// Each feature module adds its tables here (one line each).
export type DB = FoundationTables &
  ApiKeysTables &
  CartsTables &
  IdempotencyTables &
  OAuthAppsTables &
  OAuthTables &
  WebhooksTables;
