// Row types of the outbox: the events table (src/db/migrations/0001_foundation.sql) and its sequences.
import type { Mode } from '../../lib/credentials.ts';

export interface EventsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  type: string;
  payload: string;
  created_at: Date;
  /** The request during which it was recorded (migration 0081); null for the cart sweep's. */
  request_id: string | null;
  /** 1, 2, 3, ... per merchant and mode in commit order (migration 0060). */
  sequence: number;
}

/** One counter per merchant and mode: the last sequence given (migration 0060). */
export interface EventSequencesTable {
  merchant_id: string;
  mode: Mode;
  last: number;
}

export interface EventsTables {
  events: EventsTable;
  event_sequences: EventSequencesTable;
}
