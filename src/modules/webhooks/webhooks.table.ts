// Row types of the webhook tables (src/db/migrations/0004_webhooks.sql).
import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export type WebhookStatus = 'enabled' | 'disabled';
/** `listener`: the temporary endpoint of an open `svc listen` stream (migration 0016). */
export type WebhookKind = 'endpoint' | 'listener';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhooksTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  url: string;
  events: string[];
  description: string | null;
  /** The app it belongs to (migration 0041): it then receives the events of the app's installations. */
  app_id: Generated<string | null>;
  status: Generated<WebhookStatus>;
  kind: Generated<WebhookKind>;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  /** A listener's session start (migration 0017); null for endpoints. */
  listen_from: Generated<Date | null>;
  last_attempt_at: Generated<Date | null>;
  last_response_status: Generated<number | null>;
  /** The last attempt's error, beside its status (migration 0090). */
  last_error: Generated<string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Date | null;
}

export interface DeliveriesTable {
  id: string;
  webhook_id: string;
  merchant_id: string;
  mode: Mode;
  event_id: string;
  event_type: string;
  /** Of a delivery to an app webhook: the installation it was made for (migration 0041); null otherwise. */
  grant_id: Generated<string | null>;
  store_id: Generated<string | null>;
  status: Generated<DeliveryStatus>;
  test: Generated<boolean>;
  attempt_count: Generated<number>;
  step: Generated<number>;
  next_attempt_at: Date | null;
  locked_until: Date | null;
  locked_by: string | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DeliveryAttemptsTable {
  delivery_id: string;
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  request_headers: string | null;
  response_headers: string | null;
  error: string | null;
}

export interface WebhooksTables {
  webhooks: WebhooksTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
}
