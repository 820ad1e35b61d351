// Row types of the audit module's tables (migrations 0001 and 0005).
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
}

export interface AuditCountsTable {
  merchant_id: string;
  mode: Mode;
  key: string;
  shard: number;
  n: number;
}

export interface AuditTables {
  audit_logs: AuditLogsTable;
  audit_counts: AuditCountsTable;
}
