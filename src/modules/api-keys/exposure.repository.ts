// Key pairs by id across a merchant's two modes, for the credentials a member saw in clear (the members
// module: API.md section 11.2): whether each still works, and until when.
import type { Executor } from '../../db/database.ts';

export async function keyPairsById(db: Executor, merchantId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'mode', 'expires_at', 'revoked_at'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
}
