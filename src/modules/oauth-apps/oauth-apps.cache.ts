// Apps as the token endpoint and the bearer check need them, cached per process: client authentication
// and access-token checks then cost no query once warm. Every change to an app (update, rotation, delete)
// notifies APPS_CHANNEL in its transaction, and every process drops the app on hearing it. The cache is the
// shared BusCache (src/db/bus-cache.ts): an app is kept under the key it was looked up by (its id, or its
// client id) and tagged by its id, so one notification drops both.
import type { Bus } from '../../db/bus.ts';
import { BusCache } from '../../db/bus-cache.ts';
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import { hashCredential, sameHash, type Mode } from '../../lib/credentials.ts';
import { findAppByClientId, findAppById, type AppRow } from './oauth-apps.repository.ts';
import { splitScopes } from '../../lib/scopes.ts';
import { unpooled } from '../../lib/heap-bytes.ts';
import { publicJwk, type PublicJwk } from '../../lib/jws.ts';
import type { TokenEndpointAuthMethod } from './oauth-apps.table.ts';

export const APPS_CHANNEL = 'svc_oauth_apps';

export interface ClientApp {
  id: string;
  merchantId: string;
  mode: Mode;
  clientId: string;
  name: string;
  redirectUris: readonly string[];
  allowedScopes: readonly string[];
  /** Codes and tokens created before this instant (ms) no longer verify. */
  tokensValidAfter: number;
  secretHash: Buffer;
  previousSecretHash: Buffer | null;
  previousSecretExpiresAt: number | null;
  /** How it authenticates at the token, revocation and introspection endpoints (API.md section 12.3). */
  authMethod: TokenEndpointAuthMethod;
  /** Its registered public keys, ready to verify (private_key_jwt). */
  keys: readonly PublicJwk[];
}

/** The keys of a stored JWKS, made into key objects once per cache fill; a stored key is valid by then. */
export function jwksKeys(jwks: string | null): PublicJwk[] {
  if (!jwks) return [];
  const { keys } = JSON.parse(jwks) as { keys: unknown[] };
  return keys.map(publicJwk).filter((k): k is PublicJwk => 'key' in k);
}

/** This process's apps, made by `createOauthApps` and passed to whoever looks an app up. */
export type AppsCache = BusCache<ClientApp>;

// An app is about 1.5 KB, 3-4 KB with public keys, and is kept under at most two keys: 8 MiB holds a few
// thousand apps in use (docs/decisions/0215-caches-bounded-by-bytes.md).
const MAX_BYTES = 8 * 2 ** 20;

export function createAppsCache(bus: Bus): AppsCache {
  return new BusCache<ClientApp>(bus, { channel: APPS_CHANNEL, maxBytes: MAX_BYTES, tagOf: (a) => a.id });
}

export function toClientApp(row: AppRow): ClientApp {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    clientId: row.client_id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    allowedScopes: splitScopes(row.allowed_scopes),
    tokensValidAfter: row.tokens_valid_after.getTime(),
    // copied: the driver's hash is a slice of Node's 64 KiB Buffer pool, kept alive whole while cached
    secretHash: unpooled(row.secret_hash),
    previousSecretHash: row.previous_secret_hash && unpooled(row.previous_secret_hash),
    previousSecretExpiresAt: row.previous_secret_expires_at?.getTime() ?? null,
    authMethod: row.token_endpoint_auth_method,
    keys: jwksKeys(row.jwks),
  };
}

export async function clientById(
  apps: AppsCache,
  ctx: Context,
  clientId: string,
): Promise<ClientApp | undefined> {
  const key = `client:${clientId}`;
  return (
    apps.get(key) ??
    apps.load([key], async () => {
      const row = await findAppByClientId(ctx.db, clientId);
      return row && toClientApp(row);
    })
  );
}

export async function appById(apps: AppsCache, ctx: Context, appId: string): Promise<ClientApp | undefined> {
  const key = `id:${appId}`;
  return (
    apps.get(key) ??
    apps.load([key], async () => {
      const row = await findAppById(ctx.db, appId);
      return row && toClientApp(row);
    })
  );
}

/**
 * SHA-256 and a constant-time compare: client secrets carry 178 random bits, so a slow KDF buys nothing. The
 * previous secret passes until its grace ends at `now` (epoch ms, the service's clock).
 */
export function secretMatches(app: ClientApp, secret: string, now: number): boolean {
  const hash = hashCredential(secret);
  if (sameHash(hash, app.secretHash)) return true;
  return (
    app.previousSecretHash !== null &&
    app.previousSecretExpiresAt !== null &&
    now < app.previousSecretExpiresAt &&
    sameHash(hash, app.previousSecretHash)
  );
}

/** Inside the transaction of the change: heard by every process at its commit. */
export async function announceAppChange(trx: Executor, appId: string): Promise<void> {
  await notify(trx, APPS_CHANNEL, appId);
}

/** Makes sure this process listens before it serves from the cache; a failed listen is tried again next time. */
export async function watchApps(apps: AppsCache): Promise<void> {
  await apps.listen();
}

/** The process that made a change forgets at once, without waiting for its own notification. */
export function forgetApp(apps: AppsCache, appId: string): void {
  apps.evict(appId);
}
