// The SQL of grants (installations): a consent's grant, the connections list, a disconnection, last uses.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { recordLastUses } from '../../db/last-uses.ts';
import { pageById } from '../../db/paging.ts';
import type { PageInput, Scope } from '../../lib/scope.ts';
import type { Mode } from '../../lib/credentials.ts';
import { retireAccessTokens, type GrantOwner } from './tokens.repository.ts';

export type { GrantOwner };

/** The grant's current scopes: every token of the grant is bound by them (undefined: the grant is gone). */
export async function findGrantScopes(db: Executor, grantId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('oauth_grants')
    .select('scopes')
    .where('id', '=', grantId)
    .executeTakeFirst();
  return row?.scopes;
}

export interface GrantWrite {
  id: string;
  app_id: string;
  merchant_id: string;
  mode: Mode;
  scopes: string;
  store_id: string | null;
}

export interface GrantWritten {
  id: string;
  /** Null for a new installation; the scopes it replaced otherwise. */
  previousScopes: string | null;
}

/**
 * Records a consent's grant: a new installation, or new scopes for the merchant's existing one. The insert
 * decides which (ON CONFLICT DO NOTHING), so two consents racing for one first install make one installation
 * and one update, never two installations; the update locks the row first and reports the scopes it replaced.
 */
export async function writeGrant(db: Executor, row: GrantWrite): Promise<GrantWritten> {
  const inserted = await db
    .insertInto('oauth_grants')
    .values(row)
    .onConflict((oc) => oc.columns(['app_id', 'merchant_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, previousScopes: null };
  const current = await db
    .selectFrom('oauth_grants')
    .select(['id', 'scopes'])
    .where('app_id', '=', row.app_id)
    .where('merchant_id', '=', row.merchant_id)
    // the update's own lock: FOR UPDATE would also wait for (and deadlock with) the key-share locks that
    // concurrent exchanges' token inserts take on the grant through their foreign keys
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  await db
    .updateTable('oauth_grants')
    .set({ scopes: row.scopes, updated_at: sql<Date>`now()` })
    .where('id', '=', current.id)
    .execute();
  return { id: current.id, previousScopes: current.scopes };
}

export async function listGrants(db: Executor, scope: Scope, page: PageInput) {
  const base = db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_apps as a', 'a.id', 'g.app_id')
    .innerJoin('merchants as dev', 'dev.id', 'a.merchant_id')
    .where('g.merchant_id', '=', scope.merchantId)
    .where('g.mode', '=', scope.mode);
  return pageById(
    base,
    base.select([
      'g.id',
      'g.scopes',
      'g.mode',
      'g.created_at',
      'g.last_used_at',
      'a.id as app_id',
      'a.name as app_name',
      'a.client_id',
      'a.allowed_scopes',
      'dev.name as developer_name',
    ]),
    page,
    'g.id',
  );
}

/**
 * Cascades to the grant's codes, families and tokens; its access tokens are kept by hash first
 * (oauth_retired_tokens), so that a call still made with one is recorded for the app's owner. Run it in a
 * transaction: a grant not deleted retires nothing.
 */
export async function deleteGrant(db: Executor, owner: GrantOwner, grantId: string) {
  await retireAccessTokens(db, owner, grantId);
  const scoped = db.deleteFrom('oauth_grants').where('id', '=', grantId);
  return (
    'appId' in owner
      ? scoped.where('app_id', '=', owner.appId)
      : scoped.where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode)
  )
    .returning(['id', 'app_id', 'merchant_id', 'mode', 'scopes', 'store_id'])
    .returning((eb) =>
      eb
        .selectFrom('oauth_apps')
        .select('allowed_scopes')
        .whereRef('oauth_apps.id', '=', 'oauth_grants.app_id')
        .as('allowed_scopes'),
    )
    .executeTakeFirst();
}

/** A batch of last-use times (epoch ms by grant id), in one statement that never moves a time backwards. */
export async function recordGrantUses(db: Executor, uses: ReadonlyMap<string, number>): Promise<void> {
  await recordLastUses(db, 'oauth_grants', uses);
}

/** How many merchants installed the app: the (app_id, merchant_id) unique index answers it. */
export async function countGrantsOfApp(db: Executor, appId: string): Promise<number> {
  const row = await db
    .selectFrom('oauth_grants')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('app_id', '=', appId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
