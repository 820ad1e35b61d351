// The SQL of app tokens (migration 0150): issued by the client_credentials grant, read by the bearer check on
// a miss of the access-token cache, revoked one at a time, purged with the other expired tokens.
import type { Executor } from '../../db/database.ts';
import type { OAuthAppTokensTable } from './oauth.table.ts';

export async function insertAppToken(db: Executor, row: OAuthAppTokensTable): Promise<void> {
  await db.insertInto('oauth_app_tokens').values(row).execute();
}

/** Only when the access-token statement found nothing: a store's token costs no second statement. */
export async function findAppToken(db: Executor, hash: Buffer) {
  return db
    .selectFrom('oauth_app_tokens')
    .select(['app_id', 'merchant_id', 'mode', 'created_at', 'expires_at', 'jkt'])
    .where('hash', '=', hash)
    .executeTakeFirst();
}

/** RFC 7009 for an app token: only the app's own; answers whether one went. */
export async function deleteAppToken(db: Executor, hash: Buffer, appId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('oauth_app_tokens')
    .where('hash', '=', hash)
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
