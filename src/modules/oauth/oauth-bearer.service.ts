// Access tokens as public-interface credentials (API.md section 6). A token's row is cached per process by
// its hash, so a warm bearer check costs no query; the app (scopes, rotation cut-off) comes from the app
// cache. A cached token holds its scopes already bound by its grant's: revocations and new consents (which
// replace the grant's scopes) notify GRANTS_CHANNEL with the grant id in their transaction, and every process
// drops that grant's tokens when it hears it (within a second; at once in the process that made the change).
// A changed or deleted app (APPS_CHANNEL) drops its tokens too: they would fail the app check anyway, and
// dropping them spares a query per call. A token refused for its expiry, or found only among the tokens of a
// removed installation, still names its app: the request log records the refused call for the app's owner
// (API.md section 12.3) from what this cache holds, without another lookup.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { notify } from '../../db/bus.ts';
import { BusCache } from '../../db/bus-cache.ts';
import { credentialKey, type Mode } from '../../lib/credentials.ts';
import { LastUses } from '../../lib/last-uses.ts';
import { warnOnFailure } from '../../lib/loop.ts';
import type { AppInstallation, PublicPrincipal } from '../../http/request.ts';
import { APPS_CHANNEL, appById, intersect, splitScopes, type AppsCache } from '../oauth-apps/index.ts';
import { APP_INSTALLATIONS } from '../../lib/scopes.ts';
import { findAppToken } from './app-tokens.repository.ts';
import { recordGrantUses } from './grants.repository.ts';
import { findAccessToken, findRetiredToken } from './tokens.repository.ts';

export const GRANTS_CHANNEL = 'svc_oauth_grants';
// About 20,000 tokens at 825 bytes each, misses included (docs/decisions/0215-caches-bounded-by-bytes.md).
const MAX_BYTES = 16 * 2 ** 20;
// A grant's last_used_at is written at most once a minute per process, in one UPDATE per 5 s for all
// grants used meanwhile: per-request writes would double the cost of a bearer check.
const TOUCH_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 5_000;
// Unknown hashes are remembered briefly: a token is never presented before its insert commits, so a miss
// cannot turn into a hit later; the bound only limits memory.
const MISS_TTL_MS = 60_000;

/** Whose a token is: its app, the installing merchant and mode, the installation's store. */
interface Owned {
  appId: string;
  merchantId: string;
  mode: Mode;
  storeId: string | null;
}

interface Entry extends Owned {
  /** Null for an app token (client_credentials): it opens no installation. */
  grantId: string | null;
  /** The token's scopes within its grant's, as they were read; the app's allowed scopes bound them at use. */
  scopes: readonly string[];
  createdAt: number;
  expiresAt: number;
  /** DPoP-bound: the key's thumbprint; null for a Bearer token. */
  jkt: string | null;
}
/**
 * A miss carries no grant: no notification names it, and it ages out. A token of a removed installation is a
 * miss that still says whose it was.
 */
type Slot = Entry | { missUntil: number; retired?: Owned };

/** The access-token state of one process: the cache and the grants' last uses waiting to be written. */
export interface AccessTokens {
  readonly cache: BusCache<Slot>;
  /** The oauth-apps module's client cache: a token verifies only while its app does. */
  readonly apps: AppsCache;
  /** Each grant's last use, noted at most once a minute and written every 5 s. */
  readonly uses: LastUses;
}

export function accessTokens(ctx: Context, apps: AppsCache): AccessTokens {
  return {
    apps,
    cache: new BusCache<Slot>(ctx.bus, {
      channel: GRANTS_CHANNEL,
      tagOf: (slot) => ('grantId' in slot ? (slot.grantId ?? appTokensTag(slot.appId)) : ''),
      alsoOn: [{ channel: APPS_CHANNEL, tagOf: (slot) => ('appId' in slot ? slot.appId : '') }],
      maxBytes: MAX_BYTES,
    }),
    uses: new LastUses({
      name: 'grant last-use flush',
      everyMs: FLUSH_EVERY_MS,
      throttleMs: TOUCH_EVERY_MS,
      write: (uses) => recordGrantUses(ctx.db, uses),
      onError: warnOnFailure(ctx.log),
    }),
  };
}

/** What the grants' channel names to drop an app's app tokens (a revocation of one of them). */
export const appTokensTag = (appId: string) => `app-tokens:${appId}`;

/** In the revoking transaction: every process forgets the grant's tokens at its commit. */
export async function announceGrantRevocation(trx: Executor, grantId: string): Promise<void> {
  await notify(trx, GRANTS_CHANNEL, grantId);
}

/** A grant's scopes changed (a new consent): its tokens are read again, with the new bound, everywhere. */
export const announceGrantChange = announceGrantRevocation;

/** After the commit, in the process that revoked: forget at once rather than when the notification lands. */
export function forgetGrant(tokens: AccessTokens, grantId: string): void {
  tokens.cache.evict(grantId);
}

async function lookup(ctx: Context, tokens: AccessTokens, key: string): Promise<Slot> {
  const slot = await tokens.cache.load([key], async (): Promise<Slot> => {
    const hash = Buffer.from(key, 'base64');
    const row = await findAccessToken(ctx.db, hash);
    if (!row) {
      const app = await appTokenEntry(ctx, hash);
      if (app) return app;
      // Only a token that is neither live nor an app token pays this third statement.
      const retired = await findRetiredToken(ctx.db, hash);
      const missUntil = ctx.clock.now() + MISS_TTL_MS;
      if (!retired) return { missUntil };
      const { app_id: appId, merchant_id: merchantId, mode, store_id: storeId } = retired;
      return { missUntil, retired: { appId, merchantId, mode, storeId } };
    }
    return {
      grantId: row.grant_id,
      appId: row.app_id,
      merchantId: row.merchant_id,
      mode: row.mode,
      storeId: row.store_id,
      scopes: intersect(splitScopes(row.scopes), splitScopes(row.grant_scopes)),
      createdAt: row.created_at.getTime(),
      expiresAt: row.expires_at.getTime(),
      jkt: row.jkt,
    };
  });
  return slot!;
}

/** An app token, looked up only when no store's token has the hash: the second statement of a rare miss. */
async function appTokenEntry(ctx: Context, hash: Buffer): Promise<Entry | undefined> {
  const row = await findAppToken(ctx.db, hash);
  if (!row) return undefined;
  return {
    grantId: null,
    appId: row.app_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    storeId: null,
    scopes: [APP_INSTALLATIONS],
    createdAt: row.created_at.getTime(),
    expiresAt: row.expires_at.getTime(),
    jkt: row.jkt,
  };
}

/** A grant was used outside a bearer check (a code exchange): recorded in the next batched write. */
export function noteGrantUse(ctx: Context, tokens: AccessTokens, grantId: string): void {
  tokens.uses.note(grantId, ctx.clock.now());
}

/** The `access_token` resolver of public auth, which has already checked the token's shape and checksum. */
export async function resolveAccessToken(
  ctx: Context,
  tokens: AccessTokens,
  token: string,
): Promise<PublicPrincipal | undefined> {
  const key = credentialKey(token);
  const now = ctx.clock.now();
  let slot = tokens.cache.get(key);
  if (!slot || ('missUntil' in slot && slot.missUntil <= now)) {
    ctx.metrics.cacheMiss.access_token.inc();
    slot = await lookup(ctx, tokens, key);
  } else ctx.metrics.cacheHit.access_token.inc();
  if ('missUntil' in slot || slot.expiresAt <= now) return undefined;
  const app = await appById(tokens.apps, ctx, slot.appId);
  if (!app || slot.createdAt < app.tokensValidAfter) return undefined;
  if (slot.grantId === null) return appTokenPrincipal(slot);
  tokens.uses.note(slot.grantId, now);
  const principal: PublicPrincipal = {
    merchantId: slot.merchantId,
    mode: slot.mode,
    kind: 'access_token',
    credentialId: slot.grantId,
    scopes: intersect(slot.scopes, app.allowedScopes),
    appId: slot.appId,
    installation: { appId: slot.appId, ownerId: app.merchantId, storeId: slot.storeId },
    issuedAt: slot.createdAt,
    expiresAt: slot.expiresAt,
  };
  if (slot.jkt !== null) principal.jkt = slot.jkt;
  return principal;
}

/** An app token's principal: the app's owner and mode, for the app's own routes only (public-auth.ts). */
function appTokenPrincipal(slot: Entry): PublicPrincipal {
  const principal: PublicPrincipal = {
    merchantId: slot.merchantId,
    mode: slot.mode,
    kind: 'access_token',
    credentialId: slot.appId,
    scopes: slot.scopes,
    appId: slot.appId,
    appToken: true,
    issuedAt: slot.createdAt,
    expiresAt: slot.expiresAt,
  };
  if (slot.jkt !== null) principal.jkt = slot.jkt;
  return principal;
}

/** A refused access token's call, as the app owner's request log records it. */
export interface RefusedTokenCall {
  mode: Mode;
  installation: AppInstallation;
}

/**
 * Whose app a refused access token belongs to, from what the bearer check just left in this process's cache:
 * an expired token, a token its app no longer accepts, or one of a removed installation. Undefined for a
 * token never issued, or whose app is gone. Read again only when the check's answer was not cached (a
 * notification raced its read): off the call's path, after its answer.
 */
export async function refusedTokenCall(
  ctx: Context,
  tokens: AccessTokens,
  token: string,
): Promise<RefusedTokenCall | undefined> {
  const key = credentialKey(token);
  const slot = tokens.cache.get(key) ?? (await lookup(ctx, tokens, key));
  const owned = slot && ('missUntil' in slot ? slot.retired : slot);
  if (!owned) return undefined;
  const app = await appById(tokens.apps, ctx, owned.appId);
  if (!app) return undefined;
  return {
    mode: owned.mode,
    installation: { appId: app.id, ownerId: app.merchantId, storeId: owned.storeId },
  };
}
