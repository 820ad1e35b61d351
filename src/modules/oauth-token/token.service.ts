// The token and revocation endpoints (RFC 6749 4.1.3 and 6, RFC 7636 4.6, RFC 7009, RFC 9700 2.2.2 and
// 4.14). Protocol failures are OAuthError values; where a failure must also revoke something (a code or a
// refresh token used twice), the revocation commits and the error is returned, not thrown, so that the
// transaction does not roll it back.
import { createHash } from 'node:crypto';
import type { Context } from '../../context.ts';
import { hashCredential, makeCredential, parseCredential } from '../../lib/credentials.ts';
import type { Tx } from '../../db/database.ts';
import type { RequestMeta } from '../../http/request.ts';
import { prepareAudit, writeAudit, type AuditContext } from '../audit/index.ts';
import {
  intersect,
  isScope,
  joinScopes,
  rights,
  splitScopes,
  within,
  type ClientApp,
} from '../oauth-apps/index.ts';
import { announceGrantRevocation, forgetGrant, noteGrantUse } from './oauth-bearer.service.ts';
import { OAuthError } from './oauth.errors.ts';
import { param, type Params } from './oauth-client-auth.ts';
import type { OauthState } from './oauth.state.ts';
import * as repo from './oauth.repository.ts';

/** A rotated refresh token presented again this soon is taken for a lost response, not theft. */
export const REFRESH_GRACE_MS = 60_000;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  /** The installation (API.md section 5); the route adds `store_id` and `mode`. */
  merchant_id: string;
}

type Outcome =
  | { ok: TokenAnswer; revokedGrant?: string; reuse?: undefined; appId?: undefined }
  | { error: OAuthError; revokedGrant?: string; reuse?: 'code' | 'refresh'; appId?: string };

function appAudit(ctx: Context, client: ClientApp, merchantId: string, meta: RequestMeta): AuditContext {
  return { merchantId, mode: client.mode, actor: { type: 'app', id: client.id }, ...meta, clock: ctx.clock };
}

function newPair(ctx: Context) {
  const access = makeCredential('access_token');
  const refresh = makeCredential('refresh_token');
  return {
    access,
    refresh,
    pair: {
      accessHash: access.hash,
      refreshHash: refresh.hash,
      accessTtl: ctx.config.oauth.accessTokenTtl,
      refreshTtl: ctx.config.oauth.refreshTokenTtl,
      issuedAt: new Date(ctx.clock.now()),
    },
  };
}

function answer(
  ctx: Context,
  tokens: ReturnType<typeof newPair>,
  scopes: string,
  merchantId: string,
): TokenAnswer {
  return {
    access_token: tokens.access.token,
    token_type: 'Bearer',
    expires_in: ctx.config.oauth.accessTokenTtl,
    refresh_token: tokens.refresh.token,
    scope: scopes,
    merchant_id: merchantId,
  };
}

const invalidGrant = (why: string) => new OAuthError('invalid_grant', why);

/**
 * What a token may do (API.md sections 5 and 6): its own scopes within the grant's current scopes and the
 * app's current allowed scopes. Reported as written when nothing was cut (`public:*` stays `public:*`).
 */
export function effectiveScope(
  own: string,
  grantScopes: string | null | undefined,
  allowed: readonly string[],
): string {
  const mine = splitScopes(own);
  const kept = intersect(intersect(mine, splitScopes(grantScopes ?? '')), allowed);
  return kept.length === rights(mine).size ? own : joinScopes(kept);
}

/** A reused code or refresh token: its whole family is revoked, audited and announced to every process. */
async function revokeLeakedFamily(
  trx: Tx,
  audit: AuditContext,
  row: { family_id: string; grant_id: string },
  reuse: 'code' | 'refresh',
  appId: string,
  what: { action: string; fields: Record<string, unknown>; message: string },
): Promise<Outcome> {
  await repo.deleteFamily(trx, row.family_id);
  await writeAudit(trx, audit, {
    action: what.action,
    entityType: 'oauth_grant',
    entityId: row.grant_id,
    fields: what.fields,
  });
  await announceGrantRevocation(trx, row.grant_id);
  return { error: invalidGrant(what.message), revokedGrant: row.grant_id, reuse, appId };
}

/** Who a new pair belongs to: the family, grant and merchant of the code or token it comes from. */
function pairOwner(
  row: {
    family_id: string;
    grant_id: string;
    merchant_id: string;
    mode: repo.PairOwner['mode'];
    scopes: string;
  },
  appId: string,
  accessScopes: string,
): repo.PairOwner {
  return {
    familyId: row.family_id,
    grantId: row.grant_id,
    appId,
    merchantId: row.merchant_id,
    mode: row.mode,
    scopes: row.scopes,
    accessScopes,
  };
}

function pkceMatches(verifier: string, challenge: string): boolean {
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

async function settle(
  ctx: Context,
  state: OauthState,
  run: () => Promise<Outcome>,
  meta: RequestMeta,
): Promise<TokenAnswer> {
  const outcome = await run();
  if (outcome.revokedGrant) forgetGrant(state.tokens, outcome.revokedGrant);
  if (outcome.reuse) {
    // After the commit: the revocation happened. The grant id and app identify it; no token is logged.
    (outcome.reuse === 'code' ? ctx.metrics.codeReuse : ctx.metrics.refreshReuse).inc();
    ctx.log.warn(
      { request_id: meta.requestId, grant_id: outcome.revokedGrant, app_id: outcome.appId },
      outcome.reuse === 'code'
        ? 'authorization code reused: the tokens issued from it are revoked'
        : 'refresh token reused: its whole token family is revoked',
    );
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.ok;
}

const unknownCode = () => invalidGrant('The code is unknown, expired or was issued to another client.');

/** Why an unused code of this client may not be exchanged with these parameters; undefined if it may. */
function codeProblem(
  ctx: Context,
  client: ClientApp,
  row: repo.CodeRow,
  redirectUri: string,
  verifier: string | undefined,
): OAuthError | undefined {
  if (row.expires_at.getTime() <= ctx.clock.now() || row.created_at.getTime() < client.tokensValidAfter) {
    return unknownCode();
  }
  if (row.redirect_uri !== redirectUri) {
    return invalidGrant('redirect_uri differs from the one of the authorization request.');
  }
  if (!verifier || !VERIFIER.test(verifier) || !pkceMatches(verifier, row.code_challenge)) {
    return invalidGrant('code_verifier does not match the code_challenge (PKCE, S256).');
  }
  return undefined;
}

export async function exchangeCode(
  ctx: Context,
  state: OauthState,
  client: ClientApp,
  params: Params,
  meta: RequestMeta,
): Promise<TokenAnswer> {
  const code = param(params, 'code');
  const redirectUri = param(params, 'redirect_uri');
  const verifier = param(params, 'code_verifier');
  if (!code) throw new OAuthError('invalid_request', 'code is required.');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required.');
  if (parseCredential(code)?.kind !== 'authorization_code') throw invalidGrant('The code is not valid.');
  const hash = hashCredential(code);

  // The common case in two statements: the code read and checked here, then issued from in one statement
  // that also marks it used, if it still is unused (repo.issueFromCodes, shared by concurrent exchanges).
  const row = await repo.findCode(ctx.db, hash);
  if (
    row &&
    !row.used_at &&
    row.app_id === client.id &&
    row.mode === client.mode &&
    !codeProblem(ctx, client, row, redirectUri, verifier)
  ) {
    // Another consent since this code may have narrowed the grant: the answer reports what now holds.
    const scope = effectiveScope(row.scopes, row.grant_scopes, client.allowedScopes);
    const tokens = newPair(ctx);
    const audit = prepareAudit(appAudit(ctx, client, row.merchant_id, meta), {
      action: 'oauth.token_issued',
      entityType: 'oauth_grant',
      fields: { app_id: client.id, client_id: client.clientId, grant_type: 'authorization_code', scope },
    });
    if (await state.exchange.submit({ ...tokens.pair, hash, audit })) {
      // last_used_at in the batched write, not here: every install's exchanges would queue on the grant row
      noteGrantUse(ctx, state.tokens, row.grant_id);
      return answer(ctx, tokens, scope, row.merchant_id);
    }
  }
  return settle(ctx, state, () => refuseCode(ctx, client, hash, redirectUri, verifier, meta), meta);
}

/**
 * A code that may not be exchanged, or that a concurrent exchange used first: under the code's lock, the
 * reason, and for a second use the revocation of what the first issued. Rare, so it may take a transaction.
 */
async function refuseCode(
  ctx: Context,
  client: ClientApp,
  hash: Buffer,
  redirectUri: string,
  verifier: string | undefined,
  meta: RequestMeta,
): Promise<Outcome> {
  return ctx.db.transaction().execute(async (trx): Promise<Outcome> => {
    const row = await repo.lockCode(trx, hash);
    if (!row || row.app_id !== client.id || row.mode !== client.mode) return { error: unknownCode() };
    if (row.used_at) {
      // RFC 6749 4.1.2 and RFC 9700 4.5: a second use means the code leaked; what it issued is revoked.
      return revokeLeakedFamily(trx, appAudit(ctx, client, row.merchant_id, meta), row, 'code', client.id, {
        action: 'oauth.code_reuse_detected',
        fields: { app_id: client.id, client_id: client.clientId, tokens_revoked: true },
        message: 'The code was already used; the tokens issued from it are revoked.',
      });
    }
    return { error: codeProblem(ctx, client, row, redirectUri, verifier) ?? unknownCode() };
  });
}

/** The audit entry of a refresh, made before the statement so that the statement can write it. */
function refreshAudit(ctx: Context, client: ClientApp, meta: RequestMeta, scope: string | null) {
  return prepareAudit(
    { actor: { type: 'app', id: client.id }, ...meta, clock: ctx.clock },
    {
      action: 'oauth.token_refreshed',
      entityType: 'oauth_grant',
      fields: {
        app_id: client.id,
        client_id: client.clientId,
        grant_type: 'refresh_token',
        ...(scope ? { scope } : {}),
      },
    },
  );
}

export async function refreshTokens(
  ctx: Context,
  state: OauthState,
  client: ClientApp,
  params: Params,
  meta: RequestMeta,
): Promise<TokenAnswer> {
  const token = param(params, 'refresh_token');
  const scope = param(params, 'scope');
  if (!token) throw new OAuthError('invalid_request', 'refresh_token is required.');
  if (parseCredential(token)?.kind !== 'refresh_token') throw invalidGrant('The refresh token is not valid.');
  const hash = hashCredential(token);

  let accessScopes: string | null = null;
  if (scope !== undefined) {
    const requested = splitScopes(scope);
    if (requested.length === 0 || !requested.every(isScope)) {
      throw new OAuthError('invalid_scope', 'scope holds an unknown scope.');
    }
    const row = await repo.findRefreshWithGrant(ctx.db, hash);
    if (!row || row.kind !== 'refresh' || row.app_id !== client.id) {
      throw invalidGrant('The refresh token is unknown, expired, revoked or was issued to another client.');
    }
    const granted = splitScopes(effectiveScope(row.scopes, row.grant_scopes, client.allowedScopes));
    if (!within(requested, granted)) {
      throw new OAuthError('invalid_scope', 'scope may only narrow what the refresh token was granted.');
    }
    accessScopes = joinScopes(requested);
  }

  const tokens = newPair(ctx);
  const input: repo.RotateInput = {
    ...tokens.pair,
    hash,
    appId: client.id,
    validAfter: new Date(client.tokensValidAfter),
    accessScopes,
    audit: refreshAudit(ctx, client, meta, accessScopes),
  };
  const rotated = await state.refresh.submit(input);
  if (rotated) {
    const scope = effectiveScope(rotated.scopes, rotated.grant_scopes, client.allowedScopes);
    return answer(ctx, tokens, scope, rotated.merchant_id);
  }
  return settle(ctx, state, () => refreshSlowPath(ctx, client, hash, tokens, accessScopes, meta), meta);
}

const unknownRefresh = () =>
  invalidGrant('The refresh token is unknown, expired, revoked or was issued to another client.');

/** A refresh token on the slow path, locked in its transaction, with what its checks and answers need. */
interface Presented {
  readonly ctx: Context;
  readonly trx: Tx;
  readonly client: ClientApp;
  readonly hash: Buffer;
  readonly row: repo.TokenRow;
  readonly audit: AuditContext;
  /** The pair to issue, and the narrower scope asked for its access token (null: the grant's). */
  readonly tokens: ReturnType<typeof newPair>;
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
async function refreshSlowPath(
  ctx: Context,
  client: ClientApp,
  hash: Buffer,
  tokens: ReturnType<typeof newPair>,
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
  const peek = await repo.findToken(trx, hash);
  if (!peek || peek.kind !== 'refresh' || peek.app_id !== client.id) return undefined;
  if (peek.branch_of && !peek.rotated_at && !peek.revoked_at) await repo.lockToken(trx, peek.branch_of);
  return repo.lockToken(trx, hash);
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
  const siblings = await repo.lockSiblings(trx, row.branch_of);
  // PGlite returns bytea as a Uint8Array, PostgreSQL as a Buffer: compare as Buffers.
  const others = siblings.filter((s) => !Buffer.from(s.hash).equals(hash) && !s.revoked_at);
  if (others.some((s) => s.rotated_at)) return reuse(p, 'sibling_already_used'); // defensive
  await repo.tombstone(
    trx,
    others.map((s) => s.hash),
  );
  await repo.deleteTokens(
    trx,
    others.map((s) => s.twin_access).filter((h) => h !== null),
  );
  await repo.markRotated(trx, hash, tokens.pair);
  await repo.insertPair(trx, pairOwner(row, p.client.id, p.accessScopes ?? row.scopes), tokens.pair);
  const ok = await issue(p, { siblings_revoked: others.length });
  if (others.length === 0) return { ok };
  await announceGrantRevocation(trx, row.grant_id);
  return { ok, revokedGrant: row.grant_id };
}

/**
 * API.md section 5: a rotated token presented again within the grace (a lost response, two racing
 * refreshes) gets a fresh sibling pair, and the pair issued before it stays valid until one of them is
 * refreshed; unless the branch issued from it was already used, when the other party is replaying it.
 */
async function replayInGrace(p: Presented): Promise<Outcome> {
  const { trx, hash, row, tokens } = p;
  const child = row.child_refresh ? await repo.lockToken(trx, row.child_refresh) : undefined;
  if (!child || child.rotated_at || child.revoked_at) return reuse(p, 'branch_already_used');
  await repo.markBranch(trx, child.hash, hash, row.child_access);
  const owner = pairOwner(row, p.client.id, p.accessScopes ?? row.scopes);
  await repo.insertPair(trx, { ...owner, branchOf: hash }, tokens.pair);
  await repo.setChildren(trx, hash, tokens.pair);
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
  const grantScopes = await repo.findGrantScopes(trx, row.grant_id);
  const scope = effectiveScope(accessScopes ?? row.scopes, grantScopes, client.allowedScopes);
  return answer(ctx, p.tokens, scope, row.merchant_id);
}

/** RFC 7009: the answer is the same whether or not the token existed or belonged to the client. */
export async function revokeToken(
  ctx: Context,
  state: OauthState,
  client: ClientApp,
  params: Params,
  meta: RequestMeta,
): Promise<void> {
  const token = param(params, 'token');
  param(params, 'token_type_hint'); // a hint only (RFC 7009 2.1): checked for repetition, then ignored
  if (!token) throw new OAuthError('invalid_request', 'token is required.');
  const kind = parseCredential(token)?.kind;
  if (kind !== 'access_token' && kind !== 'refresh_token') return;
  const hash = hashCredential(token);
  const grantId = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.lockToken(trx, hash);
    if (!row || row.app_id !== client.id) return undefined;
    // Revoking a refresh token revokes its whole family, access tokens included (RFC 7009 2.1).
    if (row.kind === 'refresh') await repo.deleteFamily(trx, row.family_id);
    else await repo.deleteTokens(trx, [hash]);
    await writeAudit(trx, appAudit(ctx, client, row.merchant_id, meta), {
      action: 'oauth.token_revoked',
      entityType: 'oauth_grant',
      entityId: row.grant_id,
      fields: { app_id: client.id, client_id: client.clientId, token_type: `${row.kind}_token` },
    });
    await announceGrantRevocation(trx, row.grant_id);
    return row.grant_id;
  });
  if (grantId) forgetGrant(state.tokens, grantId);
}
