// RFC 7662 introspection (API.md section 10). The answer is what the public auth hook would decide, because
// it asks the same thing: `CredentialResolvers.resolve`, with the resolvers and per-process caches the keys and OAuth
// modules registered. A revoked, expired, narrowed or disconnected credential is therefore inactive exactly
// when the hook would refuse it, on every process, and a malformed one is refused by its checksum before any
// lookup. Expected negative outcomes are values: `{"active":false}` says nothing about why.
import type { Context } from '../../context.ts';
import type { CredentialResolvers } from '../../http/public-auth.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import type { Mode } from '../../lib/credentials.ts';
import { installedStoreId, type FirstStores } from '../merchants/index.ts';
import { appById, joinScopes, type AppsCache, type ClientApp } from '../oauth-apps/index.ts';

/** An OAuth client sees its own access tokens only; a platform service (the internal token) sees any. */
export type Introspector = { kind: 'client'; app: ClientApp } | { kind: 'platform' };

export interface ActiveToken {
  active: true;
  token_type: PublicPrincipal['kind'];
  scope: string;
  client_id?: string;
  merchant_id: string;
  store_id: string | null;
  mode: Mode;
  exp?: number;
  iat: number;
  sub: string;
  app_id?: string;
  key_id?: string;
  /** RFC 9449 6.2: the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
}
export type Introspection = ActiveToken | { active: false };

const INACTIVE: Introspection = Object.freeze({ active: false });
const seconds = (ms: number) => Math.floor(ms / 1000);

export async function introspect(
  apps: AppsCache,
  firstStores: FirstStores,
  ctx: Context,
  credentials: CredentialResolvers,
  caller: Introspector,
  token: string,
): Promise<Introspection> {
  const principal = await credentials.resolve(ctx, token);
  if (!principal) return INACTIVE;
  // Another app's token, or a key, is none of a client's business: the same answer as an unknown token.
  if (caller.kind === 'client' && principal.appId !== caller.app.id) return INACTIVE;
  const app =
    principal.appId === undefined
      ? undefined
      : caller.kind === 'client'
        ? caller.app
        : await appById(apps, ctx, principal.appId);
  if (principal.appId !== undefined && !app) return INACTIVE; // deleted between the two cached reads
  return {
    active: true,
    token_type: principal.kind,
    scope: joinScopes(principal.scopes),
    ...(app ? { client_id: app.clientId } : {}),
    merchant_id: principal.merchantId,
    // an app token acts on no store
    store_id:
      principal.appToken === true
        ? null
        : ((await installedStoreId(firstStores, ctx, principal.merchantId)) ?? null),
    mode: principal.mode,
    ...(principal.expiresAt !== undefined ? { exp: seconds(principal.expiresAt) } : {}),
    iat: seconds(principal.issuedAt),
    sub: principal.merchantId,
    ...(app ? { app_id: app.id } : { key_id: principal.credentialId }),
    ...(principal.jkt !== undefined ? { cnf: { jkt: principal.jkt } } : {}),
  };
}
