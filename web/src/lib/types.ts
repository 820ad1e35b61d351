// The objects of the merchant interface (API.md sections 2, 3, 4, 7, 8, 11.2), as the dashboard reads them.
import type { Role } from './role.ts';
export type Mode = 'test' | 'live';
export type Scope = 'public:read' | 'public:write' | 'public:*';
export const SCOPES: readonly Scope[] = ['public:read', 'public:write', 'public:*'];
export type { Role };

export interface ListPage<T> {
  items: T[];
  count: number;
  has_more: boolean;
  next_cursor: string | null;
}

export interface Me {
  user: { id: string; email: string; role: Role };
  merchant: { id: string; name: string };
  role: Role;
  memberships: { merchant: { id: string; name: string }; role: Role }[];
  stores: { id: string; name: string }[];
  /** The merchant requires a second factor this user has not enrolled (API.md 12.4). */
  mfa_enrolment_required?: boolean;
}

export interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
  last_active_at: string | null;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
  url?: string;
  emailed?: boolean;
  /** The pending invitation to the same address this one replaced (its link no longer works). */
  replaced?: { id: string; role: Role; created_at: string; expires_at: string } | null;
}

export interface InvitationPreview {
  email: string;
  role: Role;
  merchant: { id: string; name: string };
  expires_at: string;
  account_exists: boolean;
}

export interface ExposedCredential {
  type: 'api_key' | 'client_secret' | 'webhook_secret';
  id: string;
  name: string | null;
  mode: Mode;
  seen_at: string;
  how: 'created' | 'rotated' | 'revealed';
  expires_at: string | null;
}

/** A member removed in the last 90 days who saw credentials that still work (API.md 12.4). */
export interface FormerMember {
  id: string;
  email: string;
  removed_at: string;
  removed_by: string | null;
  removed_by_email: string | null;
  exposed_credentials: ExposedCredential[];
}

export interface RotatedCredential {
  type: ExposedCredential['type'];
  id: string;
  name: string | null;
  mode: Mode;
  outcome: 'rotated' | 'ended' | 'skipped';
  secret: string | null;
  new_id: string | null;
  error: string | null;
}

/** A public key an app registered for private_key_jwt, as the JWK it sent. */
export interface PublicJwk {
  kty: string;
  kid?: string;
  alg?: string;
  crv?: string;
  [member: string]: unknown;
}

export interface App {
  id: string;
  client_id: string;
  name: string;
  description: string | null;
  redirect_uris: string[];
  allowed_scopes: Scope[];
  mode: Mode;
  client_secret_last4: string;
  /** How it authenticates at the token endpoint (API.md 12.3); private_key_jwt with `jwks`. */
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  jwks: { keys: PublicJwk[] } | null;
  created_at: string;
  updated_at: string;
  client_secret?: string;
}

export interface Connection {
  id: string;
  app: { id: string; name: string; client_id: string; developer_name?: string };
  scopes: Scope[];
  /** The event types the app receives from this account now (never where they go). */
  events: string[];
  created_at: string;
  last_used_at: string | null;
}

/** A store that installed one of the account's apps (a grant), as its developer sees it. */
export interface Installation {
  id: string;
  merchant_id: string;
  store: { id: string; name: string } | null;
  scopes: string[];
  mode: Mode;
  installed_at: string;
  last_used_at: string | null;
}

export type KeyStatus = 'active' | 'expiring' | 'revoked' | 'expired';
export interface KeyPair {
  id: string;
  name: string | null;
  mode: Mode;
  publishable_key: string;
  secret_key_last4: string;
  scopes: Scope[];
  status: KeyStatus;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  secret_key?: string;
  rotated_from?: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  /** The app whose installations it hears; null for the account's own endpoint. */
  app_id: string | null;
  kind?: 'endpoint' | 'listener';
  status: 'enabled' | 'disabled';
  mode: Mode;
  created_at: string;
  updated_at: string;
  disabled_reason: string | null;
  /** Most attempts started in any one second; null: no limit. */
  rate_limit: number | null;
  ordering: WebhookOrdering;
  /** Which events of the subscribed types it receives (API.md 12.2); null: every one. */
  filter?: PayloadFilter | null;
  health: WebhookHealth;
  secret?: string;
}

export type FilterOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'exists' | 'prefix';
export interface FilterCondition {
  path: string;
  op: FilterOp;
  value: unknown;
}
export type PayloadFilter = { all: FilterCondition[] } | { any: FilterCondition[] };

/** A replay by filter (POST /webhooks/{id}/replays) and its progress. */
export interface Replay {
  id: string;
  webhook_id: string;
  status: 'running' | 'done' | 'cancelled';
  filter: {
    since: string;
    until: string;
    status: 'failed' | 'all';
    event_types: string[] | null;
    store_id: string | null;
  };
  matched: number;
  queued: number;
  skipped: number;
  created_at: string;
  finished_at: string | null;
}

export type WebhookOrdering = 'none' | 'per_object';

export interface WebhookHealth {
  deliveries_24h: number;
  /** Events its payload filter refused in the last 24 hours. */
  filtered_24h?: number;
  success_rate_24h: number | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  failing_since: string | null;
  disables_at: string | null;
  /** Attempts per second allowed now; null while unconstrained. */
  pace: number | null;
  pace_reason: 'rate_limit' | '429' | '503' | 'timeout' | null;
}

export interface EventDefinition {
  id: string;
  name: string;
  category: string;
  description: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export interface Attempt {
  number: number;
  started_at: string;
  duration_ms: number | null;
  response_status: number | null;
  response_body: string | null;
  request_headers?: Record<string, string> | null;
  response_headers?: Record<string, string> | null;
  error: string | null;
}
export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The installing store of an app webhook's delivery; null for the merchant's own. */
  store_id?: string | null;
  app_id?: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  test: boolean;
  created_at: string;
  payload?: string | null;
  attempts?: Attempt[];
}

/** An endpoint an event may be resent to (GET /events/{id}/resend-targets). */
export interface ResendTarget {
  webhook_id: string;
  url: string;
  description: string | null;
  app_id: string | null;
}

/** Where deliveries leave from (GET /webhook-source-addresses). */
export interface SourceAddresses {
  addresses: string[];
  updated_at: string;
}

export interface EventItem {
  id: string;
  type: string;
  timestamp: string;
  mode: Mode;
  merchant_id: string;
  data: unknown;
  created_at: string;
  deliveries: (Pick<Delivery, 'id' | 'webhook_id' | 'status' | 'attempt_count'> & Partial<Delivery>)[];
}

export interface LogEntry {
  id: string;
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: string;
  /** The audit chain: null until the entry is sealed, a few seconds after it is written. */
  sequence: number | null;
  hash: string | null;
  prev_hash: string | null;
}

export interface ChainState {
  state: 'verified' | 'broken' | 'outside_chain';
  verified_through: { sequence: number; hash: string; created_at: string } | null;
  broken: { sequence: number; id: string; issue: string } | null;
  unsealed: number;
  /** Entries neither sealed nor queued: rows inserted into the database by hand. */
  outside_chain: number;
  first_outside_chain: { id: string; created_at: string } | null;
  checked_at: string;
}

/** A call to the public interface, as its request log recorded it (API.md section 11.6). */
export interface RequestEntry {
  id: string;
  created_at: string;
  mode: Mode;
  method: string;
  path: string;
  route: string | null;
  status: number;
  error_code: string | null;
  duration_ms: number;
  credential: {
    type: 'secret_key' | 'publishable_key' | 'access_token' | 'client_secret';
    id: string;
    last4: string;
  };
  app_id: string | null;
  store_id: string | null;
  ip: string | null;
  user_agent: string | null;
  idempotency_key: string | null;
  idempotent_replayed: boolean;
  error: Record<string, unknown> | null;
}

export interface RequestDetail extends RequestEntry {
  /** The body's top-level field names, never their values; null without a JSON or form body. */
  body_fields: string[] | null;
  audit_entries: LogEntry[];
  deliveries: Delivery[];
}
