// App tokens (API.md section 12.3): issued by the token endpoint's client_credentials grant (oauth-token
// module), verified by the access-token resolver (oauth-bearer.service.ts), revoked by RFC 7009 (the
// oauth-introspect module). Their table is this module's.
import type { Context } from '../../context.ts';
import { notify } from '../../db/bus.ts';
import { makeCredential, type Mode } from '../../lib/credentials.ts';
import { deleteAppToken, insertAppToken as insertRow } from './app-tokens.repository.ts';
import { appTokensTag, GRANTS_CHANNEL, type AccessTokens } from './oauth-bearer.service.ts';

/** At most an hour (API.md section 12.3), shorter when SVC_OAUTH_ACCESS_TOKEN_TTL is. */
const MAX_TTL_SECONDS = 3600;

export interface IssuedAppToken {
  token: string;
  expiresIn: number;
}

/** A new app token of the app, one autocommitted INSERT. */
export async function insertAppToken(
  ctx: Context,
  app: { id: string; merchantId: string; mode: Mode },
  /** The DPoP key's thumbprint when the request carried a proof. */
  jkt: string | null,
): Promise<IssuedAppToken> {
  const credential = makeCredential('access_token');
  const expiresIn = Math.min(ctx.config.oauth.accessTokenTtl, MAX_TTL_SECONDS);
  const now = ctx.clock.now();
  await insertRow(ctx.db, {
    hash: credential.hash,
    app_id: app.id,
    merchant_id: app.merchantId,
    mode: app.mode,
    created_at: new Date(now),
    expires_at: new Date(now + expiresIn * 1000),
    jkt,
  });
  return { token: credential.token, expiresIn };
}

/**
 * RFC 7009 for an app token of the app: deleted, and every process drops the app's cached app tokens at the
 * commit (the others are read again at their next use). Answers whether the hash was one.
 */
export async function revokeAppToken(
  ctx: Context,
  tokens: AccessTokens,
  hash: Buffer,
  appId: string,
): Promise<boolean> {
  const gone = await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteAppToken(trx, hash, appId))) return false;
    await notify(trx, GRANTS_CHANNEL, appTokensTag(appId));
    return true;
  });
  if (gone) tokens.cache.evict(appTokensTag(appId));
  return gone;
}
