// The SQL of consents (a pending authorization request) and authorization codes.
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { OAuthCodesTable, OAuthConsentsTable } from './oauth.table.ts';

export type CodeRow = Selectable<OAuthCodesTable>;

export async function insertConsent(db: Executor, row: Insertable<OAuthConsentsTable>): Promise<void> {
  await db.insertInto('oauth_consents').values(row).execute();
}

export async function findConsent(db: Executor, merchantId: string, consentId: string) {
  return db
    .selectFrom('oauth_consents')
    .select(['id', 'app_id', 'redirect_uri'])
    .where('id', '=', consentId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}

/** Single use: the consent is taken (deleted) by the decision that reads it, if it is alive at `now`. */
export async function takeConsent(db: Executor, merchantId: string, consentId: string, now: Date) {
  return db
    .deleteFrom('oauth_consents')
    .where('id', '=', consentId)
    .where('merchant_id', '=', merchantId)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export async function insertCode(db: Executor, row: Insertable<OAuthCodesTable>): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

/** With its grant's current scopes, which bound what the code's tokens may do. */
export async function findCode(db: Executor, hash: Buffer) {
  return db
    .selectFrom('oauth_codes as c')
    .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .selectAll('c')
    .select('g.scopes as grant_scopes')
    .where('c.hash', '=', hash)
    .executeTakeFirst();
}

export async function lockCode(db: Executor, hash: Buffer) {
  return db.selectFrom('oauth_codes').selectAll().where('hash', '=', hash).forUpdate().executeTakeFirst();
}
