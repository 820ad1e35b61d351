// What the token endpoint's paths share: the answer, the outcome of a path that may revoke (returned, not
// thrown, so that the revocation commits), the new pair, the effective scope, and the revocation of a leaked
// family.
import type { Context } from '../../context.ts';
import { makeCredential } from '../../lib/credentials.ts';
import type { Tx } from '../../db/database.ts';
import type { RequestMeta } from '../../http/request.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { intersect, joinScopes, rights, splitScopes, type ClientApp } from '../oauth-apps/index.ts';
import * as oauth from '../oauth/index.ts';
import { OAuthError } from './oauth.errors.ts';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token: string;
  scope: string;
  /** The installation (API.md section 5); the route adds `store_id` and `mode`. */
  merchant_id: string;
}

export type Outcome =
  | { ok: TokenAnswer; revokedGrant?: string; reuse?: undefined; appId?: undefined }
  | { error: OAuthError; revokedGrant?: string; reuse?: 'code' | 'refresh'; appId?: string };

export function appAudit(
  ctx: Context,
  client: ClientApp,
  merchantId: string,
  meta: RequestMeta,
): AuditContext {
  return { merchantId, mode: client.mode, actor: { type: 'app', id: client.id }, ...meta, clock: ctx.clock };
}

export function newPair(ctx: Context) {
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

export type NewTokens = ReturnType<typeof newPair>;

export function answer(ctx: Context, tokens: NewTokens, scopes: string, merchantId: string): TokenAnswer {
  return {
    access_token: tokens.access.token,
    token_type: 'Bearer',
    expires_in: ctx.config.oauth.accessTokenTtl,
    refresh_token: tokens.refresh.token,
    scope: scopes,
    merchant_id: merchantId,
  };
}

export const invalidGrant = (why: string) => new OAuthError('invalid_grant', why);

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
export async function revokeLeakedFamily(
  trx: Tx,
  audit: AuditContext,
  row: { family_id: string; grant_id: string },
  reuse: 'code' | 'refresh',
  appId: string,
  what: { action: string; fields: Record<string, unknown>; message: string },
): Promise<Outcome> {
  await oauth.deleteFamily(trx, row.family_id);
  await writeAudit(trx, audit, {
    action: what.action,
    entityType: 'oauth_grant',
    entityId: row.grant_id,
    fields: what.fields,
  });
  await oauth.announceGrantRevocation(trx, row.grant_id);
  return { error: invalidGrant(what.message), revokedGrant: row.grant_id, reuse, appId };
}

/** Who a new pair belongs to: the family, grant and merchant of the code or token it comes from. */
export function pairOwner(
  row: {
    family_id: string;
    grant_id: string;
    merchant_id: string;
    mode: oauth.PairOwner['mode'];
    scopes: string;
  },
  appId: string,
  accessScopes: string,
): oauth.PairOwner {
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

export const unknownRefresh = () =>
  invalidGrant('The refresh token is unknown, expired, revoked or was issued to another client.');
