// grant_type=client_credentials (RFC 6749 4.4, API.md section 12.3): the app, authenticated as at every grant,
// gets an app token for its own resources (its installations): Bearer, at most an hour, scope
// app:installations, no refresh token (RFC 6749 4.4.3), no installation named. It reads no store's data.
import type { Context } from '../../context.ts';
import { APP_INSTALLATIONS } from '../../lib/scopes.ts';
import { splitScopes, type ClientApp } from '../oauth-apps/index.ts';
import { insertAppToken } from '../oauth/index.ts';
import { param, type Params } from './client-auth.ts';
import { OAuthError } from './oauth.errors.ts';

export interface AppTokenAnswer {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  mode: ClientApp['mode'];
}

export async function issueAppToken(
  ctx: Context,
  client: ClientApp,
  params: Params,
  jkt: string | undefined,
): Promise<AppTokenAnswer> {
  const scope = param(params, 'scope');
  // RFC 6749 3.3: a request may name the scope; this grant has only the one.
  if (scope !== undefined && !splitScopes(scope).every((s) => s === APP_INSTALLATIONS)) {
    throw new OAuthError('invalid_scope', `client_credentials gives the scope ${APP_INSTALLATIONS} only.`);
  }
  const issued = await insertAppToken(ctx, client, jkt ?? null);
  return {
    access_token: issued.token,
    token_type: jkt === undefined ? 'Bearer' : 'DPoP',
    expires_in: issued.expiresIn,
    scope: APP_INSTALLATIONS,
    mode: client.mode,
  };
}
