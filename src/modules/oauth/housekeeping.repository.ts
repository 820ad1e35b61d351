// The SQL of the purge of expired codes, consents, tokens, tombstones and orphan families (oauth-housekeeping.ts).
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** Deletes up to `limit` rows whose time is past at `now`; returns how many went. */
export async function purgeExpired(
  db: Executor,
  table:
    | 'oauth_tokens'
    | 'oauth_codes'
    | 'oauth_consents'
    | 'oauth_retired_tokens'
    | 'oauth_app_tokens'
    | 'oauth_jtis',
  limit: number,
  now: Date,
): Promise<number> {
  // Used codes are kept 10 minutes past expiry so that a late second use is still seen as reuse.
  const cutoff =
    table === 'oauth_codes' ? sql`${now}::timestamptz - interval '10 minutes'` : sql`${now}::timestamptz`;
  const key =
    table === 'oauth_consents' ? sql.ref('id') : table === 'oauth_jtis' ? sql`issuer, jti` : sql.ref('hash');
  // Tombstones (revoked siblings) outlive their own expiry: purgeTombstones takes them with their family. An
  // access token is kept an hour past its expiry, as a removed installation's are (oauth_retired_tokens), so
  // that a call still made with it is recorded for the app's owner (docs/decisions/0156-refused-app-calls.md).
  const keep =
    table === 'oauth_tokens'
      ? sql`and revoked_at is null and (kind = 'refresh' or expires_at < ${now}::timestamptz - interval '1 hour')`
      : sql``;
  const result = await sql`
    delete from ${sql.table(table)} where (${key}) in (
      select ${key} from ${sql.table(table)} where expires_at < ${cutoff} ${keep} limit ${limit}
    )
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Expired tombstones whose family has nothing else left (every other token expired and was purged, but for
 * expired access tokens kept an hour for the request log): the family's lifetime is over. Until then a
 * tombstone stays, so that presenting it is still seen as reuse.
 */
export async function purgeTombstones(db: Executor, limit: number, now: Date): Promise<number> {
  const result = await sql`
    delete from oauth_tokens where hash in (
      select t.hash from oauth_tokens t
       where t.expires_at < ${now}::timestamptz and t.revoked_at is not null
         and not exists (
           select 1 from oauth_tokens l
            where l.family_id = t.family_id and l.revoked_at is null
              and (l.kind = 'refresh' or l.expires_at >= ${now}::timestamptz)
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
