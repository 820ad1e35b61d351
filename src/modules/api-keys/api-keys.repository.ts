import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { ApiKeysTable } from './api-keys.table.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertKey(db: Executor, row: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listKeys(
  db: Executor,
  filter: { merchantId: string; mode: Mode; limit: number; startingAfter: string | undefined },
): Promise<{ rows: ApiKeyRow[]; count: number }> {
  let page = db
    .selectFrom('api_keys')
    .selectAll()
    .where('merchant_id', '=', filter.merchantId)
    .where('mode', '=', filter.mode);
  if (filter.startingAfter) page = page.where('id', '<', filter.startingAfter);
  const [rows, total] = await Promise.all([
    page
      .orderBy('id', 'desc')
      .limit(filter.limit + 1)
      .execute(),
    db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('merchant_id', '=', filter.merchantId)
      .where('mode', '=', filter.mode)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

/** The key locked for a change: concurrent rotations or revocations of one key run one after the other. */
export async function lockKey(
  trx: Executor,
  merchantId: string,
  mode: Mode,
  keyId: string,
): Promise<ApiKeyRow | undefined> {
  return trx
    .selectFrom('api_keys')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
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

/** One statement for a whole batch of last-use times; never moves a time backwards. */
export async function recordLastUse(db: Executor, uses: ReadonlyMap<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  const values = sql.join([...uses].map(([id, at]) => sql`(${id}::text, ${at.toISOString()}::timestamptz)`));
  await sql`
    update api_keys as k set last_used_at = greatest(k.last_used_at, u.at)
    from (values ${values}) as u (id, at)
    where k.id = u.id`.execute(db);
}
