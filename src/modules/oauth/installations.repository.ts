// SQL of installations (API.md section 11.1): the grants as an app's developer sees them, and the store.redact
// each uninstall schedules (migration 0040).
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { pageById } from '../../db/paging.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { PageInput } from '../../lib/scope.ts';
import type { OAuthRedactionsTable } from './oauth.table.ts';

/** The app's installations, newest first: one range of oauth_grants_app_idx, each with its store's name. */
export async function listInstallations(db: Executor, appId: string, page: PageInput) {
  const base = db.selectFrom('oauth_grants as g').where('g.app_id', '=', appId);
  return pageById(
    base,
    base
      .leftJoin('stores as s', 's.id', 'g.store_id')
      .select([
        'g.id',
        'g.merchant_id',
        'g.store_id',
        's.name as store_name',
        'g.scopes',
        'g.mode',
        'g.created_at',
        'g.last_used_at',
      ]),
    page,
    'g.id',
  );
}

/** Every installation of the app, for a change of its allowed scopes: read in pages of the grant id. */
export async function installationsAfter(db: Executor, appId: string, afterId: string, limit: number) {
  return db
    .selectFrom('oauth_grants')
    .select(['id', 'merchant_id', 'mode', 'scopes', 'store_id'])
    .where('app_id', '=', appId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Schedules the store.redact of an uninstall; a later uninstall of the same app by the merchant replaces it. */
export async function scheduleRedaction(db: Executor, row: OAuthRedactionsTable): Promise<void> {
  await db
    .insertInto('oauth_redactions')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['app_id', 'merchant_id']).doUpdateSet((eb) => ({
        grant_id: eb.ref('excluded.grant_id'),
        store_id: eb.ref('excluded.store_id'),
        uninstalled_at: eb.ref('excluded.uninstalled_at'),
        due_at: eb.ref('excluded.due_at'),
      })),
    )
    .execute();
}

/** A reinstall: the store's data is the app's again, so nothing asks it to erase it. */
export async function cancelRedaction(db: Executor, appId: string, merchantId: string): Promise<number> {
  const result = await db
    .deleteFrom('oauth_redactions')
    .where('app_id', '=', appId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Takes up to `limit` redactions due at `now` (the caller's clock), oldest first: deleted by this statement
 * and recorded as events by the caller in the same transaction. SKIP LOCKED: processes sweeping at once take
 * different rows, and a row a reinstall is deleting is left to it.
 */
export async function takeDueRedactions(db: Executor, now: Date, limit: number) {
  const { rows } = await sql<{
    app_id: string;
    merchant_id: string;
    mode: Mode;
    grant_id: string;
    store_id: string | null;
    uninstalled_at: Date;
  }>`
    delete from oauth_redactions r
    using (
      select app_id, merchant_id from oauth_redactions
      where due_at <= ${now}
      order by due_at
      limit ${limit}
      for update skip locked
    ) due
    where r.app_id = due.app_id and r.merchant_id = due.merchant_id
    returning r.app_id, r.merchant_id, r.mode, r.grant_id, r.store_id, r.uninstalled_at
  `.execute(db);
  return rows;
}
