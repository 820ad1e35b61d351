// Row types of the requests module's tables (migrations 0080, 0160 and 0185).
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
  /** The app of an access token's or a client secret's call. */
  app_id: string | null;
  /** The store of the installation an access token acts through. */
  store_id: string | null;
  /** The entry is the app owner's copy of a call on another merchant's store (API.md section 12.3). */
  for_owner: boolean;
  /** The top-level names of a JSON object or form body, never their values; null without such a body. */
  body_fields: string[] | null;
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
