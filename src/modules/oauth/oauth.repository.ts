// All SQL of the authorization server. The hot statements are `rotateRefresh`, one round trip that checks and
// marks the old refresh tokens, inserts the new pairs and writes the audit entries (through the audit module),
// and `issueFromCodes`, the same for codes' first uses.
import { CompiledQuery, sql, type Insertable, type Selectable } from 'kysely';
import type pg from 'pg';
import type { Executor } from '../../db/database.ts';
import { recordLastUses } from '../../db/last-uses.ts';
import { pageById } from '../../db/paging.ts';
import type { PageInput, Scope } from '../../lib/scope.ts';
import { auditCtes, type PreparedAudit } from '../audit/index.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { OAuthCodesTable, OAuthConsentsTable, OAuthTokensTable } from './oauth.table.ts';

export type TokenRow = Selectable<OAuthTokensTable>;
export type CodeRow = Selectable<OAuthCodesTable>;

// ---- consents -------------------------------------------------------------------------------------------

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

// ---- grants ---------------------------------------------------------------------------------------------

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

/** Cascades to the grant's codes, families and tokens. */
export async function deleteGrant(db: Executor, merchantId: string, mode: Mode, grantId: string) {
  return db
    .deleteFrom('oauth_grants')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('id', '=', grantId)
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

// ---- codes ----------------------------------------------------------------------------------------------

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

// ---- families and tokens --------------------------------------------------------------------------------

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
      't.created_at',
      't.expires_at',
    ])
    .where('t.hash', '=', hash)
    .where('t.kind', '=', 'access')
    .executeTakeFirst();
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

export interface RotateInput extends NewPair {
  hash: Buffer;
  appId: string;
  validAfter: Date;
  /** Subset of scopes for the new access token; null keeps the refresh token's. */
  accessScopes: string | null;
  /** The `oauth.token_refreshed` entry, made by the audit module before the statement writes it. */
  audit: PreparedAudit;
}

export interface Rotated {
  grant_id: string;
  merchant_id: string;
  mode: Mode;
  /** Of the new access token, as stored: the grant's and the app's current scopes bound it at use. */
  scopes: string;
  /** The grant's current scopes; null if the grant went meanwhile. */
  grant_scopes: string | null;
}

/**
 * The refresh grant's common case, for one token or many, in one statement and one transaction: the UPDATE
 * takes the row locks and marks each old token rotated only if it is live, unrotated, of its client and not
 * cut by a rotation; the new pairs and their audit entries (the audit module's `auditCtes`) are inserted
 * from what it returned. A token missing from the answer takes the slow path (grace, reuse, unknown, a
 * sibling branch). One round trip instead of five (BEGIN, SELECT FOR UPDATE, UPDATE, INSERT, COMMIT). A
 * branched token (`branch_of`, migration 0013) is left to the slow path, which settles its siblings; the
 * grant's current scopes come back with each row so that the answer reports the effective scope. TTLs are
 * the same for every item (they are the service's).
 */
export const ROTATE_SQL = `
with input as (
  select * from unnest($1::bytea[], $2::text[], $3::timestamptz[], $4::bytea[], $5::bytea[], $6::text[],
                       $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])
    as i(hash, app_id, valid_after, access_hash, refresh_hash, access_scopes, log_id, metadata, logged_at,
         issued_at)
), old as (
  update oauth_tokens t
     set rotated_at = i.issued_at, child_access = i.access_hash, child_refresh = i.refresh_hash
    from input i
   where t.hash = i.hash and t.kind = 'refresh' and t.app_id = i.app_id and t.rotated_at is null
     and t.branch_of is null and t.expires_at > i.issued_at and t.created_at >= i.valid_after
  returning t.hash, t.family_id, t.grant_id, t.app_id, t.merchant_id, t.mode, t.scopes,
            i.access_hash, i.refresh_hash, i.access_scopes, i.log_id, i.metadata, i.logged_at, i.issued_at
), fresh as (
  insert into oauth_tokens
    (hash, kind, family_id, grant_id, app_id, merchant_id, mode, scopes, created_at, expires_at)
  select access_hash, 'access', family_id, grant_id, app_id, merchant_id, mode,
         coalesce(access_scopes, scopes), issued_at, issued_at + make_interval(secs => $11::int)
    from old
  union all
  select refresh_hash, 'refresh', family_id, grant_id, app_id, merchant_id, mode,
         scopes, issued_at, issued_at + make_interval(secs => $12::int)
    from old
), refreshed as (
  select log_id, logged_at as log_at, merchant_id, mode, 'oauth.token_refreshed'::text as action,
         'oauth_grant'::text as entity_type, grant_id as entity_id, metadata
    from old
), ${auditCtes('refreshed')}
select hash, access_hash, grant_id, merchant_id, mode, coalesce(access_scopes, scopes) as scopes,
       (select g.scopes from oauth_grants g where g.id = old.grant_id) as grant_scopes
  from old`;

/** Where the hot statements run: a pg pool of the module's own, or the service's database. */
export type HotOn = { pool: Pick<pg.Pool, 'query'> } | { db: Executor };

/** One hot statement, by name on a pool (parsed once per connection; Kysely sends every query unnamed). */
async function hot<R>(on: HotOn, name: string, text: string, values: unknown[]): Promise<R[]> {
  return 'pool' in on
    ? (await on.pool.query<R & pg.QueryResultRow>({ name, text, values })).rows
    : (await on.db.executeQuery<R>(CompiledQuery.raw(text, values))).rows;
}

/**
 * Rotates each item's token if the fast path may; the answer holds, in the items' order, the rotated row or
 * undefined (the slow path decides). The caller never puts one hash twice in a call. On a pool the statement
 * runs as a named prepared statement, parsed and planned once per connection (Kysely sends every query
 * unnamed; oauth.pool.ts says how it is planned).
 */
export async function rotateRefresh(
  on: HotOn,
  items: readonly RotateInput[],
): Promise<(Rotated | undefined)[]> {
  const first = items[0];
  if (!first) return [];
  const values = [
    items.map((r) => r.hash),
    items.map((r) => r.appId),
    items.map((r) => r.validAfter),
    items.map((r) => r.accessHash),
    items.map((r) => r.refreshHash),
    items.map((r) => r.accessScopes),
    items.map((r) => r.audit.id),
    items.map((r) => r.audit.metadata),
    items.map((r) => r.audit.createdAt),
    items.map((r) => r.issuedAt),
    first.accessTtl,
    first.refreshTtl,
  ];
  type Row = Rotated & { hash: Uint8Array; access_hash: Uint8Array };
  const rows = await hot<Row>(on, 'svc_oauth_rotate_refresh', ROTATE_SQL, values);
  // PGlite returns bytea as a Uint8Array, PostgreSQL as a Buffer: compared as Buffers.
  const byHash = new Map(rows.map((row) => [Buffer.from(row.hash).toString('base64'), row]));
  return items.map((item) => {
    const row = byHash.get(item.hash.toString('base64'));
    if (!row || !Buffer.from(row.access_hash).equals(item.accessHash)) return undefined;
    return {
      grant_id: row.grant_id,
      merchant_id: row.merchant_id,
      mode: row.mode,
      scopes: row.scopes,
      grant_scopes: row.grant_scopes,
    };
  });
}

export interface IssueInput extends NewPair {
  /** Of a code the service read and checked (`findCode`). */
  hash: Buffer;
  /** The `oauth.token_issued` entry, made by the audit module before the statement writes it. */
  audit: PreparedAudit;
}

/**
 * The authorization-code grant's common case, for one code or many, after the service checked each as read
 * (`findCode`): in one statement and one transaction, each code is marked used if it still is unused, and
 * the family, the token pair and the `oauth.token_issued` entry are inserted from it. One round trip instead
 * of eight (BEGIN, the code locked, the grant's scopes, the code marked, the family, the pair, the audit
 * entry, COMMIT). The foreign keys of the pairs on their families are checked at the end of the statement,
 * when the families exist. TTLs are the same for every item (they are the service's).
 */
export const ISSUE_SQL = `
with input as (
  select * from unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::text[], $5::text[], $6::timestamptz[],
                       $7::timestamptz[])
    as i(hash, access_hash, refresh_hash, log_id, metadata, logged_at, issued_at)
), used as (
  update oauth_codes c set used_at = i.issued_at
    from input i
   where c.hash = i.hash and c.used_at is null
  returning c.hash, c.family_id, c.grant_id, c.app_id, c.merchant_id, c.mode, c.scopes,
            i.access_hash, i.refresh_hash, i.log_id, i.metadata, i.logged_at, i.issued_at
), family as (
  insert into oauth_families (id, grant_id, created_at) select family_id, grant_id, issued_at from used
), fresh as (
  insert into oauth_tokens
    (hash, kind, family_id, grant_id, app_id, merchant_id, mode, scopes, created_at, expires_at)
  select access_hash, 'access', family_id, grant_id, app_id, merchant_id, mode, scopes,
         issued_at, issued_at + make_interval(secs => $8::int)
    from used
  union all
  select refresh_hash, 'refresh', family_id, grant_id, app_id, merchant_id, mode, scopes,
         issued_at, issued_at + make_interval(secs => $9::int)
    from used
), issued as (
  select log_id, logged_at as log_at, merchant_id, mode, 'oauth.token_issued'::text as action,
         'oauth_grant'::text as entity_type, grant_id as entity_id, metadata
    from used
), ${auditCtes('issued')}
select hash from used`;

/** Per item, in order: whether it was issued (false: the code was used meanwhile, and nothing was). */
export async function issueFromCodes(on: HotOn, items: readonly IssueInput[]): Promise<boolean[]> {
  const first = items[0];
  if (!first) return [];
  const rows = await hot<{ hash: Uint8Array }>(on, 'svc_oauth_issue_from_codes', ISSUE_SQL, [
    items.map((i) => i.hash),
    items.map((i) => i.accessHash),
    items.map((i) => i.refreshHash),
    items.map((i) => i.audit.id),
    items.map((i) => i.audit.metadata),
    items.map((i) => i.audit.createdAt),
    items.map((i) => i.issuedAt),
    first.accessTtl,
    first.refreshTtl,
  ]);
  // PGlite returns bytea as a Uint8Array, PostgreSQL as a Buffer: compared as Buffers.
  const issued = new Set(rows.map((row) => Buffer.from(row.hash).toString('base64')));
  return items.map((item) => issued.has(item.hash.toString('base64')));
}

// ---- housekeeping ---------------------------------------------------------------------------------------

/** Deletes up to `limit` rows whose time is past at `now`; returns how many went. */
export async function purgeExpired(
  db: Executor,
  table: 'oauth_tokens' | 'oauth_codes' | 'oauth_consents',
  limit: number,
  now: Date,
): Promise<number> {
  // Used codes are kept 10 minutes past expiry so that a late second use is still seen as reuse.
  const cutoff =
    table === 'oauth_codes' ? sql`${now}::timestamptz - interval '10 minutes'` : sql`${now}::timestamptz`;
  const key = table === 'oauth_consents' ? sql.ref('id') : sql.ref('hash');
  // Tombstones (revoked siblings) outlive their own expiry: purgeTombstones takes them with their family.
  const keep = table === 'oauth_tokens' ? sql`and revoked_at is null` : sql``;
  const result = await sql`
    delete from ${sql.table(table)} where ${key} in (
      select ${key} from ${sql.table(table)} where expires_at < ${cutoff} ${keep} limit ${limit}
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Expired tombstones whose family has nothing else left (every other token expired and was purged): the
 * family's lifetime is over. Until then a tombstone stays, so that presenting it is still seen as reuse.
 */
export async function purgeTombstones(db: Executor, limit: number, now: Date): Promise<number> {
  const result = await sql`
    delete from oauth_tokens where hash in (
      select t.hash from oauth_tokens t
       where t.expires_at < ${now}::timestamptz and t.revoked_at is not null
         and not exists (
           select 1 from oauth_tokens l where l.family_id = t.family_id and l.revoked_at is null
         )
       limit ${limit}
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Families whose every token is gone (expired and purged, or revoked), an hour after they began. */
export async function purgeOrphanFamilies(db: Executor, limit: number, now: Date): Promise<number> {
  const result = await sql`
    delete from oauth_families where id in (
      select f.id from oauth_families f
       where f.created_at < ${now}::timestamptz - interval '1 hour'
         and not exists (select 1 from oauth_tokens t where t.family_id = f.id)
         and not exists (select 1 from oauth_codes c where c.family_id = f.id)
       limit ${limit}
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
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
