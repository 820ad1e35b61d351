// Row types of the delivery tables (src/db/migrations/0004_webhooks.sql, 0060_pace_sequence_order.sql,
// 0130_attempts_listed.sql, 0172_delivery_attempt_counts.sql).
import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
/** Why a pending delivery is out of the due index (migration 0060); 'replay': queued by a replay (0142). */
export type Parked = 'pace' | 'order' | 'replay';
/** What the endpoint answered when it was last paced down. */
export type PaceReason = '429' | '503' | 'timeout';

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
  /** The event's ordering key, for a per_object webhook (migration 0060); null: not ordered. */
  ordering_key: Generated<string | null>;
  /** Its place among the deliveries of its key: 2 x its event's sequence; a resend's, 2 x the last one + 1. */
  ordering_seq: Generated<number | null>;
  parked: Generated<Parked | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** The pace of an endpoint with a rate_limit or paced down (migration 0060). */
export interface WebhookPacesTable {
  webhook_id: string;
  rate_limit: number | null;
  /** Attempts per second the adaptive pace allows; null: not paced down. */
  pace: Generated<number | null>;
  pace_reason: Generated<PaceReason | null>;
  pace_at: Generated<Date | null>;
  slowed_at: Generated<Date | null>;
  /** What the last decrease started from: the least of the rate_limit and the pace then (migration 0110). */
  slowed_from: Generated<number | null>;
  next_slot: Generated<Date | null>;
  parked: Generated<boolean>;
  parks: Generated<number>;
}

/** What an attempt met (API.md section 12.2): a 2xx, another status, or no answer and why. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'timeout' | 'network_error' | 'refused';

export interface DeliveryAttemptsTable {
  /** `att_` + its start time (migration 0130): the attempts list's order and cursor. */
  id: string;
  delivery_id: string;
  /** Copies of its delivery's (and its webhook's app), which the attempts list filters by (migration 0130). */
  merchant_id: string;
  mode: Mode;
  webhook_id: string;
  event_id: string;
  event_type: string;
  store_id: string | null;
  app_id: string | null;
  outcome: AttemptOutcome;
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  request_headers: string | null;
  response_headers: string | null;
  error: string | null;
}

/** The attempts list's totals per filter key, kept by triggers on delivery_attempts (migration 0172). */
export interface DeliveryAttemptCountsTable {
  merchant_id: string;
  mode: Mode;
  key: string;
  shard: number;
  n: string;
}

export interface DeliveryTables {
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  delivery_attempt_counts: DeliveryAttemptCountsTable;
  webhook_paces: WebhookPacesTable;
}
