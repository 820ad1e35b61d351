// Live endpoints by id across a merchant's two modes, for the signing secrets a member saw in clear (the
// members module: API.md section 11.2): whether each still exists, and until when its previous secret works.
import type { Executor } from '../../db/database.ts';

export async function webhookSecretsById(db: Executor, merchantId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhooks')
    .select(['id', 'url', 'description', 'mode', 'previous_secret_expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .where('kind', '=', 'endpoint')
    .where('deleted_at', 'is', null)
    .execute();
}
