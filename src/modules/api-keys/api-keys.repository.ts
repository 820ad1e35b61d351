import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { recordLastUses } from '../../db/last-uses.ts';
import { pageById } from '../../db/paging.ts';
import type { Page, PageInput, Scope } from '../../lib/scope.ts';
import type { ApiKeysTable } from './api-keys.table.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertKey(db: Executor, row: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listKeys(db: Executor, scope: Scope, page: PageInput): Promise<Page<ApiKeyRow>> {
  const q = db
    .selectFrom('api_keys')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode);
  return pageById(q, q.selectAll(), page);
}

/** The key locked for a change: concurrent rotations or revocations of one key run one after the other. */
export async function lockKey(trx: Executor, scope: Scope, keyId: string): Promise<ApiKeyRow | undefined> {
  return trx
    .selectFrom('api_keys')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', keyId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateKey(
  trx: Executor,
  keyId: string,
  changes: { expires_at?: Date; revoked_at?: Date },
): Promise<ApiKeyRow> {
  return trx
    .updateTable('api_keys')
    .set(changes)
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The key a credential hash belongs to, unless revoked (expiry is checked by the caller, per request). */
export async function findUsableKeyByHash(
  db: Executor,
  column: 'secret_key_hash' | 'publishable_key_hash',
  hash: Buffer,
): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where(column, '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** A batch of last-use times (epoch ms by key id), in one statement that never moves a time backwards. */
export async function recordLastUse(db: Executor, uses: ReadonlyMap<string, number>): Promise<void> {
  await recordLastUses(db, 'api_keys', uses);
}

/** The publishable key of the merchant's newest pair in the mode that is neither revoked nor expiring. */
export async function newestPublishableKey(db: Executor, scope: Scope): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('publishable_key')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('revoked_at', 'is', null)
    .where('expires_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.publishable_key;
}
