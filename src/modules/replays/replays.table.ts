// Row types of the replays table (src/db/migrations/0142_webhook_replays.sql).
import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export type ReplayStatus = 'running' | 'done' | 'cancelled';
/** Which deliveries a replay sends again: those whose last attempt failed, or every event of the window. */
export type ReplayEventStatus = 'failed' | 'all';

/** A replay and its progress (migration 0142). */
export interface WebhookReplaysTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  webhook_id: string;
  status: ReplayStatus;
  event_status: ReplayEventStatus;
  since: Date;
  until: Date;
  event_types: string[] | null;
  store_id: string | null;
  /** What the cursor walks: the webhook's deliveries by id, or the merchant's events by sequence. */
  source: 'deliveries' | 'events';
  after_id: string | null;
  after_sequence: string | null;
  end_sequence: string | null;
  matched: number;
  queued: Generated<number>;
  skipped: Generated<number>;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface ReplaysTables {
  webhook_replays: WebhookReplaysTable;
}
