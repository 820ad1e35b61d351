// Row types of the requests module's tables (migration 0080).
import type { Mode } from '../../lib/credentials.ts';
import type { Caller } from '../../http/request.ts';

export interface RequestLogsTable {
  created_at: Date;
  merchant_id: string;
  mode: Mode;
  request_id: string;
  method: string;
  path: string;
  route: string | null;
  status: number;
  error_code: string | null;
  duration_ms: number;
  credential_type: Caller['type'];
  credential_id: string;
  credential_last4: string;
  ip: string | null;
  user_agent: string | null;
  idempotency_key: string | null;
  idempotent_replayed: boolean;
  /** The error body as sent, for answers of 400 and above. */
  error: string | null;
}

export interface RequestLogCountsTable {
  day: Date;
  merchant_id: string;
  mode: Mode;
  key: string;
  n: number;
}

export interface RequestsTables {
  request_logs: RequestLogsTable;
  request_log_counts: RequestLogCountsTable;
}
