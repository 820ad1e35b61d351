// The hot statements of the token endpoint: `rotateRefresh`, one round trip that checks and marks the old
// refresh tokens, inserts the new pairs and writes the audit entries (through the audit module), and
// `issueFromCodes`, the same for codes' first uses, which it also checks.
import { CompiledQuery } from 'kysely';
import { runPrepared, type Prepared } from '../../db/prepared.ts';
import { auditCtes, type PreparedAudit } from '../audit/index.ts';
import type { Mode } from '../../lib/credentials.ts';
import type { NewPair } from './tokens.repository.ts';

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

/**
 * Rotates each item's token if the fast path may; the answer holds, in the items' order, the rotated row or
 * undefined (the slow path decides). The caller never puts one hash twice in a call. On a pool the statement
 * runs as a named prepared statement, parsed and planned once per connection (Kysely sends every query
 * unnamed; the oauth-token module's pool.ts says how it is planned).
 */
export async function rotateRefresh(
  on: Prepared,
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
  const rows = await runPrepared<Row>(on, 'svc_oauth_rotate_refresh', CompiledQuery.raw(ROTATE_SQL, values));
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
  /** The code's hash. */
  hash: Buffer;
  /** What the code must be to be exchanged: the client's, of its mode, for this redirect and PKCE challenge. */
  appId: string;
  mode: Mode;
  redirectUri: string;
  /** The S256 of the request's code_verifier, compared with the code's code_challenge. */
  challenge: string;
  /** The client's rotation cut (`tokens_valid_after`): a code made before it is dead. */
  validAfter: Date;
  /**
   * The scope the service computed from the code read first (`findCode`), when that read found the code's
   * scope cut by its grant or by its app; null for a first try, where the statement takes the code only if
   * nothing cuts it: the grant's scopes are the code's, and each of the code's scopes is one of `allowed`.
   */
  scope: string | null;
  /** The scopes (names, space-separated) whose rights the client's allowed scopes hold. */
  allowed: string;
  /** The `oauth.token_issued` entry without its `scope`, which the statement appends (`issued.metadata`). */
  audit: PreparedAudit;
}

export interface Issued {
  grant_id: string;
  merchant_id: string;
  /** The effective scope: the code's own on a first try, else the item's `scope`. */
  scope: string;
}

/**
 * The authorization-code grant's common case, for one code or many, in one statement and one transaction:
 * each code is marked used if it still is unused, is the client's, alive, past the client's rotation cut,
 * for this redirect_uri and PKCE challenge, and (on a first try) uncut by its grant and app; the family,
 * the token pair and the `oauth.token_issued` entry are inserted from it. One round trip instead of nine
 * (the code and its grant read, BEGIN, the code locked, the grant's scopes, the code marked, the family, the
 * pair, the audit entry, COMMIT). A code the statement did not take is read and judged by the service: the
 * RFC 6749 error, a reuse's revocation, or a second try with the scope it computed. The foreign keys of the
 * pairs on their families are checked at the end of the statement, when the families exist. The audit
 * entry's `scope` is the last field of prepareAudit's JSON, appended here as JSON.stringify would write it
 * (scope names need no escaping): decision 0210. TTLs are the same for every item (they are the service's).
 */
export const ISSUE_SQL = `
with input as (
  select * from unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[],
                       $7::text[], $8::text[], $9::bytea[], $10::bytea[], $11::text[], $12::text[],
                       $13::timestamptz[], $14::timestamptz[])
    as i(hash, app_id, mode, redirect_uri, challenge, valid_after, scope, allowed, access_hash, refresh_hash,
         log_id, metadata, logged_at, issued_at)
), used as (
  update oauth_codes c set used_at = i.issued_at
    from input i
   where c.hash = i.hash and c.used_at is null and c.app_id = i.app_id and c.mode = i.mode
     and c.expires_at > i.issued_at and c.created_at >= i.valid_after and c.redirect_uri = i.redirect_uri
     and c.code_challenge = i.challenge
     and (i.scope is not null
          or (string_to_array(c.scopes, ' ') <@ string_to_array(i.allowed, ' ')
              and c.scopes = (select g.scopes from oauth_grants g where g.id = c.grant_id)))
  returning c.hash, c.family_id, c.grant_id, c.app_id, c.merchant_id, c.mode, c.scopes,
            coalesce(i.scope, c.scopes) as scope, i.access_hash, i.refresh_hash, i.log_id, i.metadata,
            i.logged_at, i.issued_at
), family as (
  insert into oauth_families (id, grant_id, created_at) select family_id, grant_id, issued_at from used
), fresh as (
  insert into oauth_tokens
    (hash, kind, family_id, grant_id, app_id, merchant_id, mode, scopes, created_at, expires_at)
  select access_hash, 'access', family_id, grant_id, app_id, merchant_id, mode, scopes,
         issued_at, issued_at + make_interval(secs => $15::int)
    from used
  union all
  select refresh_hash, 'refresh', family_id, grant_id, app_id, merchant_id, mode, scopes,
         issued_at, issued_at + make_interval(secs => $16::int)
    from used
), issued as (
  select log_id, logged_at as log_at, merchant_id, mode, 'oauth.token_issued'::text as action,
         'oauth_grant'::text as entity_type, grant_id as entity_id,
         left(metadata, -1) || ',"scope":' || to_json(scope)::text || '}' as metadata
    from used
), ${auditCtes('issued')}
select hash, grant_id, merchant_id, scope from used`;

/** Per item, in order: what was issued, or undefined if the statement did not take the code. */
export async function issueFromCodes(
  on: Prepared,
  items: readonly IssueInput[],
): Promise<(Issued | undefined)[]> {
  const first = items[0];
  if (!first) return [];
  const col = <K extends keyof IssueInput>(k: K) => items.map((i) => i[k]);
  type Row = Issued & { hash: Uint8Array };
  const rows = await runPrepared<Row>(
    on,
    'svc_oauth_issue_from_codes',
    CompiledQuery.raw(ISSUE_SQL, [
      col('hash'),
      col('appId'),
      col('mode'),
      col('redirectUri'),
      col('challenge'),
      col('validAfter'),
      col('scope'),
      col('allowed'),
      col('accessHash'),
      col('refreshHash'),
      items.map((i) => i.audit.id),
      items.map((i) => i.audit.metadata),
      items.map((i) => i.audit.createdAt),
      col('issuedAt'),
      first.accessTtl,
      first.refreshTtl,
    ]),
  );
  // PGlite returns bytea as a Uint8Array, PostgreSQL as a Buffer: compared as Buffers.
  const byHash = new Map(rows.map((row) => [Buffer.from(row.hash).toString('base64'), row]));
  return items.map((item) => {
    const row = byHash.get(item.hash.toString('base64'));
    return row && { grant_id: row.grant_id, merchant_id: row.merchant_id, scope: row.scope };
  });
}
