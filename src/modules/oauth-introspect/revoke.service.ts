// Revocation (RFC 7009): a client revokes one of its own tokens, a refresh token with its whole family.
import type { Context } from '../../context.ts';
import { hashCredential, parseCredential } from '../../lib/credentials.ts';
import type { RequestMeta } from '../../http/request.ts';
import { writeAudit } from '../audit/index.ts';
import type { ClientApp } from '../oauth-apps/index.ts';
import * as oauth from '../oauth/index.ts';
import { appAudit, OAuthError, param, type Params } from '../oauth-token/index.ts';

/** RFC 7009: the answer is the same whether or not the token existed or belonged to the client. */
export async function revokeToken(
  ctx: Context,
  tokens: oauth.AccessTokens,
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
    const row = await oauth.lockToken(trx, hash);
    if (!row || row.app_id !== client.id) return undefined;
    // Revoking a refresh token revokes its whole family, access tokens included (RFC 7009 2.1).
    if (row.kind === 'refresh') await oauth.deleteFamily(trx, row.family_id);
    else await oauth.deleteTokens(trx, [hash]);
    await writeAudit(trx, appAudit(ctx, client, row.merchant_id, meta), {
      action: 'oauth.token_revoked',
      entityType: 'oauth_grant',
      entityId: row.grant_id,
      fields: { app_id: client.id, client_id: client.clientId, token_type: `${row.kind}_token` },
    });
    await oauth.announceGrantRevocation(trx, row.grant_id);
    return row.grant_id;
  });
  if (grantId) oauth.forgetGrant(tokens, grantId);
  // Not a store's token: perhaps one of the app's app tokens (client_credentials), which has no grant to audit.
  else if (kind === 'access_token') await oauth.revokeAppToken(ctx, tokens, hash, client.id);
}
