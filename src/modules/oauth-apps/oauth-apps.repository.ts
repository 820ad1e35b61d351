import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Page, PageInput, Scope } from '../../lib/scope.ts';
import type { OAuthAppsTable } from './oauth-apps.table.ts';

export type AppRow = Selectable<OAuthAppsTable>;

export async function insertApp(db: Executor, row: Insertable<OAuthAppsTable>): Promise<AppRow> {
  return db.insertInto('oauth_apps').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findApp(db: Executor, scope: Scope, appId: string) {
  return db
    .selectFrom('oauth_apps')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', appId)
    .executeTakeFirst();
}

export async function listApps(db: Executor, scope: Scope, page: PageInput): Promise<Page<AppRow>> {
  const q = db
    .selectFrom('oauth_apps')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode);
  return pageById(q, q.selectAll(), page);
}

export async function updateApp(
  db: Executor,
  merchantId: string,
  appId: string,
  changes: Updateable<OAuthAppsTable>,
): Promise<AppRow | undefined> {
  return db
    .updateTable('oauth_apps')
    .set({ ...changes, updated_at: sql<Date>`now()` })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', appId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Replaces the secret; the previous one verifies until `previous.expiresAt`, or never again without grace.
 * Codes, grants and tokens are left alone (API.md section 3): rotation changes how the app authenticates,
 * not what merchants granted it, so `tokens_valid_after` is not moved.
 */
export async function rotateSecret(
  db: Executor,
  merchantId: string,
  appId: string,
  secret: { hash: Buffer; last4: string },
  previous: { hash: Buffer; expiresAt: Date } | null,
): Promise<AppRow | undefined> {
  return db
    .updateTable('oauth_apps')
    .set({
      secret_hash: secret.hash,
      secret_last4: secret.last4,
      previous_secret_hash: previous?.hash ?? null,
      previous_secret_expires_at: previous?.expiresAt ?? null,
      updated_at: sql<Date>`now()`,
    })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', appId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteApp(db: Executor, scope: Scope, appId: string) {
  return db
    .deleteFrom('oauth_apps')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', appId)
    .returning(['id', 'name', 'client_id'])
    .executeTakeFirst();
}

export async function findAppByClientId(db: Executor, clientId: string) {
  return db.selectFrom('oauth_apps').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function findAppById(db: Executor, appId: string) {
  return db.selectFrom('oauth_apps').selectAll().where('id', '=', appId).executeTakeFirst();
}
