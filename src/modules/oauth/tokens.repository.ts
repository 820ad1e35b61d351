// The SQL of token families and tokens on the slow paths (a rotation under lock, sibling branches, tombstones,
// revocation) and of the bearer check. The hot statements are in token-statements.repository.ts.
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { OAuthTokensTable } from './oauth.table.ts';

export type TokenRow = Selectable<OAuthTokensTable>;

/** Cascades to every token of the family. */
export async function deleteFamily(db: Executor, familyId: string): Promise<void> {
  await db.deleteFrom('oauth_families').where('id', '=', familyId).execute();
}

export interface NewPair {
  accessHash: Buffer;
  refreshHash: Buffer;
  accessTtl: number;
  refreshTtl: number;
  /**
   * The service's time when the pair was made: its tokens' `created_at`, their expiries' start, and the time
   * the statement that issues it checks and marks the old code or token against.
   */
  issuedAt: Date;
}

const expiry = (pair: NewPair, ttl: number) => new Date(pair.issuedAt.getTime() + ttl * 1000);

export interface PairOwner {
  familyId: string;
  grantId: string;
  appId: string;
  merchantId: string;
  mode: Mode;
  /** Of the refresh token: what was granted. */
  scopes: string;
  /** Of the access token: the grant's, or a subset asked for on refresh. */
  accessScopes: string;
  /** A sibling branch: the hash of the refresh token it branches from. */
  branchOf?: Buffer;
}

export async function insertPair(db: Executor, owner: PairOwner, pair: NewPair): Promise<void> {
  const common = {
    family_id: owner.familyId,
    grant_id: owner.grantId,
    app_id: owner.appId,
    merchant_id: owner.merchantId,
    mode: owner.mode,
  };
  await db
    .insertInto('oauth_tokens')
    .values([
      {
        ...common,
        hash: pair.accessHash,
        kind: 'access',
        scopes: owner.accessScopes,
        created_at: pair.issuedAt,
        expires_at: expiry(pair, pair.accessTtl),
      },
      {
        ...common,
        hash: pair.refreshHash,
        kind: 'refresh',
        scopes: owner.scopes,
        created_at: pair.issuedAt,
        expires_at: expiry(pair, pair.refreshTtl),
        ...(owner.branchOf ? { branch_of: owner.branchOf, twin_access: pair.accessHash } : {}),
      },
    ])
    .execute();
}

export async function findToken(db: Executor, hash: Buffer) {
  return db.selectFrom('oauth_tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
}

export async function lockToken(db: Executor, hash: Buffer) {
  return db.selectFrom('oauth_tokens').selectAll().where('hash', '=', hash).forUpdate().executeTakeFirst();
}

/** With the grant's current scopes, which bound the token's (a token of a deleted grant is not found). */
export async function findAccessToken(db: Executor, hash: Buffer) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([
      't.grant_id',
      't.app_id',
      't.merchant_id',
      't.mode',
      't.scopes',
      'g.scopes as grant_scopes',
      'g.store_id',
      't.created_at',
      't.expires_at',
      't.jkt',
    ])
    .where('t.hash', '=', hash)
    .where('t.kind', '=', 'access')
    .executeTakeFirst();
}

/** An access token of a removed installation, by its hash: whose it was (migration 0161). */
export async function findRetiredToken(db: Executor, hash: Buffer) {
  return db
    .selectFrom('oauth_retired_tokens')
    .select(['app_id', 'merchant_id', 'mode', 'store_id'])
    .where('hash', '=', hash)
    .executeTakeFirst();
}

/** Whose grant may be deleted: the installing merchant's (a disconnection), or the app's (an uninstall). */
export type GrantOwner = { merchantId: string; mode: Mode } | { appId: string };

/**
 * Keeps the access tokens of a grant about to be deleted, by hash, until an hour past their expiry: in the
 * deleting transaction, before the delete cascades to them.
 */
export async function retireAccessTokens(db: Executor, owner: GrantOwner, grantId: string): Promise<void> {
  const ofGrant = db
    // tokens are indexed by family, and families by grant
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_families as f', 'f.grant_id', 'g.id')
    .innerJoin('oauth_tokens as t', 't.family_id', 'f.id')
    .where('g.id', '=', grantId)
    .where('t.kind', '=', 'access');
  await db
    .insertInto('oauth_retired_tokens')
    .columns(['hash', 'app_id', 'grant_id', 'merchant_id', 'mode', 'store_id', 'retired_at', 'expires_at'])
    .expression(
      ('appId' in owner
        ? ofGrant.where('g.app_id', '=', owner.appId)
        : ofGrant.where('g.merchant_id', '=', owner.merchantId).where('g.mode', '=', owner.mode)
      ).select([
        't.hash',
        't.app_id',
        't.grant_id',
        't.merchant_id',
        't.mode',
        'g.store_id',
        sql<Date>`now()`.as('retired_at'),
        sql<Date>`t.expires_at + interval '1 hour'`.as('expires_at'),
      ]),
    )
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
}

/**
 * Binds a just-issued access token to a DPoP key (RFC 9449 5): after the statement that issued it and before
 * the answer, so no one holds it unbound. Only for a DPoP request: a Bearer request pays nothing.
 */
export async function bindAccessToken(db: Executor, hash: Buffer, jkt: string): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ jkt })
    .where('hash', '=', hash)
    .where('kind', '=', 'access')
    .execute();
}

/** A refresh token with its grant's current scopes, for checking a narrowing `scope` before rotating. */
export async function findRefreshWithGrant(db: Executor, hash: Buffer) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select(['t.kind', 't.app_id', 't.scopes', 'g.scopes as grant_scopes'])
    .where('t.hash', '=', hash)
    .executeTakeFirst();
}

export async function deleteTokens(db: Executor, hashes: Buffer[]): Promise<void> {
  if (hashes.length === 0) return;
  await db.deleteFrom('oauth_tokens').where('hash', 'in', hashes).execute();
}

export async function setChildren(db: Executor, hash: Buffer, pair: NewPair): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ child_access: pair.accessHash, child_refresh: pair.refreshHash })
    .where('hash', '=', hash)
    .execute();
}

/** The slow path's rotation of a token it holds locked: marks it used and names the pair it issued. */
export async function markRotated(db: Executor, hash: Buffer, pair: NewPair): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ rotated_at: pair.issuedAt, child_access: pair.accessHash, child_refresh: pair.refreshHash })
    .where('hash', '=', hash)
    .execute();
}

/**
 * Makes the unused pair issued from `parent` a sibling branch, before another sibling is issued beside it;
 * a pair that already is one keeps its twin. From then on its refresh leaves the fast path.
 */
export async function markBranch(
  db: Executor,
  child: Buffer,
  parent: Buffer,
  twinAccess: Buffer | null,
): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set((eb) => ({
      branch_of: parent,
      twin_access: eb.fn.coalesce('twin_access', sql<Buffer | null>`${twinAccess}::bytea`),
    }))
    .where('hash', '=', child)
    .execute();
}

/** The refresh tokens of every sibling branch of `parent`, locked in one order. */
export async function lockSiblings(db: Executor, parent: Buffer) {
  return db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('branch_of', '=', parent)
    .where('kind', '=', 'refresh')
    .orderBy('hash')
    .forUpdate()
    .execute();
}

/** Revoked siblings stay as tombstones (presenting one is reuse) until their family ends. */
export async function tombstone(db: Executor, hashes: Buffer[]): Promise<void> {
  if (hashes.length === 0) return;
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: sql<Date>`now()` })
    .where('hash', 'in', hashes)
    .execute();
}
