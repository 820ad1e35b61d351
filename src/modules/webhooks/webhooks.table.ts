// Row type of the webhooks table, the subscriptions (src/db/migrations/0004_webhooks.sql). Its health columns
// (failing_since, last_*, ok_*) are written by the delivery module's outcome statement through this module's
// fragment (health.repository.ts); its filtered counts by the outbox's fan-out (migration 0141).
import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';
import type { PayloadFilter } from './payload-filter.ts';

export type WebhookStatus = 'enabled' | 'disabled';
/** `listener`: the temporary endpoint of an open `svc listen` stream (migration 0016). */
export type WebhookKind = 'endpoint' | 'listener';
/** `per_object`: a delivery waits while an earlier one of its key to the same webhook is pending. */
export type WebhookOrdering = 'none' | 'per_object';

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
  ordering: Generated<WebhookOrdering>;
  /** Its payload filter (migration 0140); null: every event of its types. */
  filter: Generated<PayloadFilter | null>;
  /** The start of the second whose successes `ok_in_second` counts, and the count of the one before (0060). */
  ok_second: Generated<Date | null>;
  ok_in_second: Generated<number>;
  ok_second_before: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Date | null;
}

/** What payload filters refused, by webhook, hour and the event's merchant (migration 0140). */
export interface WebhookFilteredCountsTable {
  webhook_id: string;
  hour: Date;
  merchant_id: string;
  filtered: number;
}

/**
 * Real deliveries by webhook, hour of creation and source (migration 0205): made, attempted, succeeded. Kept by
 * a trigger on deliveries and by the outcome statement's recordHealth (source '').
 */
export interface WebhookDeliveryCountsTable {
  webhook_id: string;
  hour: Date;
  source: string;
  deliveries: Generated<number>;
  attempted: Generated<number>;
  succeeded: Generated<number>;
}

export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_filtered_counts: WebhookFilteredCountsTable;
  webhook_delivery_counts: WebhookDeliveryCountsTable;
}
