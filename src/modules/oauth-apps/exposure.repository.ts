// Apps by id across a merchant's two modes, for the client secrets a member saw in clear (the members module:
// API.md section 11.2): whether each app still exists, and until when its previous secret works.
import type { Executor } from '../../db/database.ts';

export async function appSecretsById(db: Executor, merchantId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('oauth_apps')
    .select(['id', 'name', 'mode', 'previous_secret_expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', ids)
    .execute();
}
