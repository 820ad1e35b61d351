import type { Generated } from 'kysely';
import type { Mode } from '../../lib/credentials.ts';

export interface IdempotencyKeysTable {
  merchant_id: string;
  mode: Mode;
  /** The credential's owner: `key:<key pair id>`, `app:<app id>` or `user:<user id>`. */
  principal: string;
  key: string;
  fingerprint: Buffer;
  response_status: number | null;
  response_type: string | null;
  /** Sealed with the master key (src/lib/secrets.ts): merchant answers carry secrets. */
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
