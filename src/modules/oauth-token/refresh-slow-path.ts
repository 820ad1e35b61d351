// The refresh grant's slow path (API.md section 5, RFC 9700 4.14.2): a token the fast path's statement did not
// rotate, locked in a transaction, and the rules that decide what it gets.
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/database.ts';
import type { RequestMeta } from '../../http/request.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import type { ClientApp } from '../oauth-apps/index.ts';
import * as oauth from '../oauth/index.ts';
import {
  answer,
  appAudit,
  effectiveScope,
  pairOwner,
  revokeLeakedFamily,
  unknownRefresh,
  type NewTokens,
  type Outcome,
  type TokenAnswer,
} from './token-outcome.ts';

/** A rotated refresh token presented again this soon is taken for a lost response, not theft. */
export const REFRESH_GRACE_MS = 60_000;

/** A refresh token on the slow path, locked in its transaction, with what its checks and answers need. */
interface Presented {
  readonly ctx: Context;
  readonly trx: Tx;
  readonly client: ClientApp;
  readonly hash: Buffer;
  readonly row: oauth.TokenRow;
  readonly audit: AuditContext;
  /** The pair to issue, and the narrower scope asked for its access token (null: the grant's). */
  readonly tokens: NewTokens;
  readonly accessScopes: string | null;
}

/** A rule of the refresh: the refusal when the token breaks it, nothing when it holds. */
type Check = (p: Presented) => Outcome | Promise<Outcome> | undefined;

/**
 * The token was not live, unrotated and unbranched: a sibling branch used for the first time, a replay in
 * the grace (a lost response, two racing refreshes: a sibling is issued), a tombstone or a replay after the
 * grace (reuse), or just invalid. Rare, so it may take a transaction and several statements. The rules come
 * in the order of RFC 6749 section 6 and API.md section 5: the token is the client's, then it is not a
 * tombstone, not expired, not replayed past the grace; then, unrotated, it is a branch's first use, and
 * rotated, a replay in the grace.
 */
export async function refreshSlowPath(
  ctx: Context,
  client: ClientApp,
  hash: Buffer,
  tokens: NewTokens,
  accessScopes: string | null,
  meta: RequestMeta,
): Promise<Outcome> {
  return ctx.db.transaction().execute(async (trx): Promise<Outcome> => {
    const row = await lockClientsToken(trx, client, hash);
    if (!row) return { error: unknownRefresh() };
    const audit = appAudit(ctx, client, row.merchant_id, meta);
    const p: Presented = { ctx, trx, client, hash, row, audit, tokens, accessScopes };
    const refusal = refuseTombstone(p) ?? refuseExpired(p) ?? refuseAfterGrace(p);
    if (refusal) return refusal;
    return row.rotated_at ? replayInGrace(p) : firstUseOfBranch(p);
  });
}

/**
 * The presented token, locked, if it is a refresh token of this client: another client's is refused and
 * left alone (RFC 6749 section 6: bound to the client it was issued to). Locks go parent first, then its
 * children, on every path: a replay of the parent and the first use of one of its branches are serialised
 * on the parent and cannot deadlock.
 */
async function lockClientsToken(trx: Tx, client: ClientApp, hash: Buffer) {
  const peek = await oauth.findToken(trx, hash);
  if (!peek || peek.kind !== 'refresh' || peek.app_id !== client.id) return undefined;
  if (peek.branch_of && !peek.rotated_at && !peek.revoked_at) await oauth.lockToken(trx, peek.branch_of);
  return oauth.lockToken(trx, hash);
}

/** RFC 9700 4.14.2: a revoked sibling presented again means one of two parties holds a stolen copy. */
const refuseTombstone: Check = (p) => (p.row.revoked_at ? reuse(p, 'revoked_sibling') : undefined);

/** Expired, or issued before the app's tokens were cut off (a secret rotation without overlap). */
const refuseExpired: Check = ({ ctx, client, row }) =>
  row.expires_at.getTime() <= ctx.clock.now() || row.created_at.getTime() < client.tokensValidAfter
    ? { error: unknownRefresh() }
    : undefined;

/** API.md section 5: a rotated token presented again more than 60 s after its rotation is reuse. */
const refuseAfterGrace: Check = (p) =>
  p.row.rotated_at && p.ctx.clock.now() - p.row.rotated_at.getTime() > REFRESH_GRACE_MS
    ? reuse(p, 'after_grace')
    : undefined;

/** The first sibling to be refreshed wins: the others become tombstones and their access tokens go. */
async function firstUseOfBranch(p: Presented): Promise<Outcome> {
  const { trx, hash, row, tokens } = p;
  // Unreachable unless branched: the fast path rotates every other live token.
  if (!row.branch_of) return { error: unknownRefresh() };
  const siblings = await oauth.lockSiblings(trx, row.branch_of);
  // PGlite returns bytea as a Uint8Array, PostgreSQL as a Buffer: compare as Buffers.
  const others = siblings.filter((s) => !Buffer.from(s.hash).equals(hash) && !s.revoked_at);
  if (others.some((s) => s.rotated_at)) return reuse(p, 'sibling_already_used'); // defensive
  await oauth.tombstone(
    trx,
    others.map((s) => s.hash),
  );
  await oauth.deleteTokens(
    trx,
    others.map((s) => s.twin_access).filter((h) => h !== null),
  );
  await oauth.markRotated(trx, hash, tokens.pair);
  await oauth.insertPair(trx, pairOwner(row, p.client.id, p.accessScopes ?? row.scopes), tokens.pair);
  const ok = await issue(p, { siblings_revoked: others.length });
  if (others.length === 0) return { ok };
  await oauth.announceGrantRevocation(trx, row.grant_id);
  return { ok, revokedGrant: row.grant_id };
}

/**
 * API.md section 5: a rotated token presented again within the grace (a lost response, two racing
 * refreshes) gets a fresh sibling pair, and the pair issued before it stays valid until one of them is
 * refreshed; unless the branch issued from it was already used, when the other party is replaying it.
 */
async function replayInGrace(p: Presented): Promise<Outcome> {
  const { trx, hash, row, tokens } = p;
  const child = row.child_refresh ? await oauth.lockToken(trx, row.child_refresh) : undefined;
  if (!child || child.rotated_at || child.revoked_at) return reuse(p, 'branch_already_used');
  await oauth.markBranch(trx, child.hash, hash, row.child_access);
  const owner = pairOwner(row, p.client.id, p.accessScopes ?? row.scopes);
  await oauth.insertPair(trx, { ...owner, branchOf: hash }, tokens.pair);
  await oauth.setChildren(trx, hash, tokens.pair);
  return { ok: await issue(p, { grace: true }) };
}

/** A reused refresh token: its whole family is revoked (API.md section 5). */
function reuse(p: Presented, reason: string): Promise<Outcome> {
  const { client } = p;
  return revokeLeakedFamily(p.trx, p.audit, p.row, 'refresh', client.id, {
    action: 'oauth.refresh_reuse_detected',
    fields: { app_id: client.id, client_id: client.clientId, family_revoked: true, reason },
    message: 'The refresh token was already used; every token of its family is revoked.',
  });
}

/** The audit entry of the new pair, and the answer with the scope that holds now. */
async function issue(p: Presented, fields: Record<string, unknown>): Promise<TokenAnswer> {
  const { ctx, trx, client, row, accessScopes } = p;
  await writeAudit(trx, p.audit, {
    action: 'oauth.token_refreshed',
    entityType: 'oauth_grant',
    entityId: row.grant_id,
    fields: {
      app_id: client.id,
      client_id: client.clientId,
      grant_type: 'refresh_token',
      ...(accessScopes ? { scope: accessScopes } : {}),
      ...fields,
    },
  });
  const grantScopes = await oauth.findGrantScopes(trx, row.grant_id);
  const scope = effectiveScope(accessScopes ?? row.scopes, grantScopes, client.allowedScopes);
  return answer(ctx, p.tokens, scope, row.merchant_id);
}
