// The token endpoint's two grants (RFC 6749 4.1.3 and 6, RFC 7636 4.6, RFC 9700 2.2.2 and 4.14): each one's
// common case in a shared statement, and what the statement did not take (refuseCode, refresh-slow-path.ts).
// Protocol failures are OAuthError values; where a failure must also revoke something (a code or a
// refresh token used twice), the revocation commits and the error is returned, not thrown, so that the
// transaction does not roll it back.
import { createHash } from 'node:crypto';
import type { Context } from '../../context.ts';
import { hashCredential, parseCredential } from '../../lib/credentials.ts';
import type { RequestMeta } from '../../http/request.ts';
import { prepareAudit } from '../audit/index.ts';
import { isScope, joinScopes, SCOPES, splitScopes, within, type ClientApp } from '../oauth-apps/index.ts';
import * as oauth from '../oauth/index.ts';
import { OAuthError } from './oauth.errors.ts';
import { param, type Params } from './client-auth.ts';
import { refreshSlowPath } from './refresh-slow-path.ts';
import type { TokenState } from './token.state.ts';
import {
  answer,
  appAudit,
  effectiveScope,
  invalidGrant,
  newPair,
  revokeLeakedFamily,
  type NewTokens,
  type Outcome,
  type TokenAnswer,
} from './token-outcome.ts';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 4.6: the S256 of a well-formed verifier; undefined for a missing or malformed one. */
function s256(verifier: string | undefined): string | undefined {
  if (!verifier || !VERIFIER.test(verifier)) return undefined;
  return createHash('sha256').update(verifier).digest('base64url');
}

async function settle(
  ctx: Context,
  state: TokenState,
  run: () => Promise<Outcome>,
  meta: RequestMeta,
): Promise<TokenAnswer> {
  const outcome = await run();
  if (outcome.revokedGrant) oauth.forgetGrant(state.tokens, outcome.revokedGrant);
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
  row: oauth.CodeRow,
  redirectUri: string,
  challenge: string | undefined,
): OAuthError | undefined {
  if (row.expires_at.getTime() <= ctx.clock.now() || row.created_at.getTime() < client.tokensValidAfter) {
    return unknownCode();
  }
  if (row.redirect_uri !== redirectUri) {
    return invalidGrant('redirect_uri differs from the one of the authorization request.');
  }
  if (challenge !== row.code_challenge) {
    return invalidGrant('code_verifier does not match the code_challenge (PKCE, S256).');
  }
  return undefined;
}

/** The scopes whose rights the client's allowed scopes hold: a code of only these is not cut by its app. */
const allowedNames = (client: ClientApp) => SCOPES.filter((s) => within([s], client.allowedScopes)).join(' ');

export async function exchangeCode(
  ctx: Context,
  state: TokenState,
  client: ClientApp,
  params: Params,
  meta: RequestMeta,
): Promise<TokenAnswer> {
  const code = param(params, 'code');
  const redirectUri = param(params, 'redirect_uri');
  if (!code) throw new OAuthError('invalid_request', 'code is required.');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required.');
  if (parseCredential(code)?.kind !== 'authorization_code') throw invalidGrant('The code is not valid.');
  const hash = hashCredential(code);
  const challenge = s256(param(params, 'code_verifier'));
  const tokens = newPair(ctx);
  const issue = (checked: string, scope: string | null) =>
    state.exchange.submit(
      issueInput(ctx, client, { hash, redirectUri, challenge: checked, scope }, tokens, meta),
    );
  // The common case in one statement, which checks the code as it marks it used (oauth.issueFromCodes,
  // shared by concurrent exchanges). A code it did not take is read: the reason, or a second try when only
  // a narrower consent or app since cut the code's scope (the answer reports what now holds).
  const issued = challenge === undefined ? undefined : await issue(challenge, null);
  if (issued) return exchanged(ctx, state, tokens, issued);
  const row = await oauth.findCode(ctx.db, hash);
  if (
    row &&
    !row.used_at &&
    row.app_id === client.id &&
    row.mode === client.mode &&
    !codeProblem(ctx, client, row, redirectUri, challenge)
  ) {
    // the challenge matched: codeProblem compared it
    const retried = await issue(
      row.code_challenge,
      effectiveScope(row.scopes, row.grant_scopes, client.allowedScopes),
    );
    if (retried) return exchanged(ctx, state, tokens, retried);
  }
  return settle(ctx, state, () => refuseCode(ctx, client, hash, redirectUri, challenge, meta), meta);
}

function issueInput(
  ctx: Context,
  client: ClientApp,
  code: { hash: Buffer; redirectUri: string; challenge: string; scope: string | null },
  tokens: NewTokens,
  meta: RequestMeta,
): oauth.IssueInput {
  return {
    ...tokens.pair,
    ...code,
    appId: client.id,
    mode: client.mode,
    validAfter: new Date(client.tokensValidAfter),
    allowed: allowedNames(client),
    // the statement appends the scope it issued, the entry's last field (ISSUE_SQL)
    audit: prepareAudit(
      { actor: { type: 'app', id: client.id }, ...meta, clock: ctx.clock },
      {
        action: 'oauth.token_issued',
        entityType: 'oauth_grant',
        fields: { app_id: client.id, client_id: client.clientId, grant_type: 'authorization_code' },
      },
    ),
  };
}

function exchanged(ctx: Context, state: TokenState, tokens: NewTokens, issued: oauth.Issued): TokenAnswer {
  // last_used_at in the batched write, not here: every install's exchanges would queue on the grant row
  oauth.noteGrantUse(ctx, state.tokens, issued.grant_id);
  return answer(ctx, tokens, issued.scope, issued.merchant_id);
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
  challenge: string | undefined,
  meta: RequestMeta,
): Promise<Outcome> {
  return ctx.db.transaction().execute(async (trx): Promise<Outcome> => {
    const row = await oauth.lockCode(trx, hash);
    if (!row || row.app_id !== client.id || row.mode !== client.mode) return { error: unknownCode() };
    if (row.used_at) {
      // RFC 6749 4.1.2 and RFC 9700 4.5: a second use means the code leaked; what it issued is revoked.
      return revokeLeakedFamily(trx, appAudit(ctx, client, row.merchant_id, meta), row, 'code', client.id, {
        action: 'oauth.code_reuse_detected',
        fields: { app_id: client.id, client_id: client.clientId, tokens_revoked: true },
        message: 'The code was already used; the tokens issued from it are revoked.',
      });
    }
    return { error: codeProblem(ctx, client, row, redirectUri, challenge) ?? unknownCode() };
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
  state: TokenState,
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
    const row = await oauth.findRefreshWithGrant(ctx.db, hash);
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
  const input: oauth.RotateInput = {
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
