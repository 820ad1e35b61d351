// Row types of the audit module's tables (migrations 0001, 0005, 0070, 0071 and 0120).
import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

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
  /**
   * True when a writer of the service made the row (and queued it for the sealer in the same statement);
   * false by default, so a row inserted by hand is found by `audit_logs_outside_idx` (migration 0120).
   */
  via_writer: Generated<boolean>;
}

export interface AuditCountsTable {
  merchant_id: string;
  mode: Mode;
  key: string;
  shard: number;
  n: number;
}

/** Entries the sealer has yet to chain (migration 0070). */
export interface AuditPendingTable {
  log_id: string;
}

/** An entry's place in its merchant's and mode's chain (migration 0070). */
export interface AuditChainTable {
  merchant_id: string;
  mode: Mode;
  sequence: number;
  log_id: string;
  hash: string;
  prev_hash: string;
}

/** The public half of a checkpoint signing key that a process started with (migration 0071). */
export interface AuditSigningKeysTable {
  kid: string;
  x: string;
  recorded_at: Date;
}

export interface AuditTables {
  audit_logs: AuditLogsTable;
  audit_counts: AuditCountsTable;
  audit_pending: AuditPendingTable;
  audit_chain: AuditChainTable;
  audit_signing_keys: AuditSigningKeysTable;
}
