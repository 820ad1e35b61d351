import type { Generated } from 'kysely';
import type { Mode } from '../lib/credentials.ts';

export interface IdempotencyKeysTable {
  merchant_id: string;
  mode: Mode;
  key: string;
  fingerprint: Buffer;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
