// Verification of secret and publishable keys: the hot path of every public call. A verified key is cached
// in process by the SHA-256 of the token, so a warm request costs a hash and a Map lookup and no database
// query. Correctness rests on invalidation, not on short lifetimes (src/db/bus-cache.ts):
// - a revocation or rotation notifies CHANNEL in its transaction; every process evicts the key at commit
//   (LISTEN/NOTIFY, about a millisecond on one host; the contract allows one second);
// - the process that made the change also evicts before it answers, so it never passes the key afterwards;
// - time-based expiry is checked at every verification from the cached `expires_at`.
// The state lives as long as the module (`createApiKeys`), and is handed to whoever verifies or presents keys.
import type { Context } from '../../context.ts';
import { BusCache } from '../../db/bus-cache.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import type { Resolved } from '../../http/public-auth.ts';
import { credentialKey, sameHash } from '../../lib/credentials.ts';
import { LastUses } from '../../lib/last-uses.ts';
import { warnOnFailure } from '../../lib/loop.ts';
import { findUsableKeyByHash, recordLastUse, type ApiKeyRow } from './api-keys.repository.ts';

// Also named by the delete trigger of migration 0002.
export const CHANNEL = 'svc_api_keys';
type KeyKind = 'secret_key' | 'publishable_key';

// Only verified keys enter the cache, so it is bounded by the keys in use; the cap guards memory anyway: 8 MiB
// is about 11,000 keys at 740 bytes each (docs/decisions/0215-caches-bounded-by-bytes.md).
const MAX_BYTES = 8 * 2 ** 20;
const PUBLISHABLE_SCOPES: readonly string[] = Object.freeze(['public:read']);
// Last-use times reach the database every 5 s: a dashboard showing "last used" to the minute needs no more,
// and one batched UPDATE replaces a write per request on the hot path.
const FLUSH_EVERY_MS = 5_000;

interface Entry {
  keyId: string;
  expiresAt: number;
  principal: PublicPrincipal;
}

export interface KeyState {
  /** Verified keys by the base64 SHA-256 of the token; tagged by key id, so one eviction drops both tokens. */
  readonly verified: BusCache<Entry>;
  /** Last use per key id, written to the database in batches. */
  readonly uses: LastUses;
}

export function createKeyState(ctx: Context): KeyState {
  return {
    verified: new BusCache<Entry>(ctx.bus, {
      channel: CHANNEL,
      maxBytes: MAX_BYTES,
      tagOf: (e) => e.keyId,
    }),
    uses: new LastUses({
      name: 'key last-use flush',
      everyMs: FLUSH_EVERY_MS,
      write: (uses) => recordLastUse(ctx.db, uses),
      onError: warnOnFailure(ctx.log),
    }),
  };
}

/** Drops a changed key from this process at once (the notification reaches the others at commit). */
export function evictKey(keys: KeyState, keyId: string): void {
  keys.verified.evict(keyId);
}

function entryOf(row: ApiKeyRow, kind: KeyKind): Entry {
  return {
    keyId: row.id,
    expiresAt: row.expires_at ? row.expires_at.getTime() : Infinity,
    principal: Object.freeze({
      merchantId: row.merchant_id,
      mode: row.mode,
      kind,
      credentialId: row.id,
      scopes: kind === 'secret_key' ? Object.freeze(row.scopes.split(' ')) : PUBLISHABLE_SCOPES,
      issuedAt: row.created_at.getTime(),
      ...(row.expires_at ? { expiresAt: row.expires_at.getTime() } : {}),
    }),
  };
}

function use(keys: KeyState, ctx: Context, entry: Entry): PublicPrincipal | undefined {
  const now = ctx.clock.now();
  if (entry.expiresAt <= now) return undefined;
  keys.uses.note(entry.keyId, now);
  return entry.principal;
}

/** Answers at once from the cache (no promise on the hot path); a miss answers a promise of the lookup. */
export function verifyKey(keys: KeyState, ctx: Context, token: string, kind: KeyKind): Resolved {
  const id = credentialKey(token);
  const hit = keys.verified.get(id);
  if (hit) {
    ctx.metrics.cacheHit[kind].inc();
    return use(keys, ctx, hit);
  }
  ctx.metrics.cacheMiss[kind].inc();
  return lookUp(keys, ctx, id, kind);
}

async function lookUp(
  keys: KeyState,
  ctx: Context,
  id: string,
  kind: KeyKind,
): Promise<PublicPrincipal | undefined> {
  const hash = Buffer.from(id, 'base64');
  const column = kind === 'secret_key' ? 'secret_key_hash' : 'publishable_key_hash';
  const entry = await keys.verified.load([id], async () => {
    const row = await findUsableKeyByHash(ctx.db, column, hash);
    return row && sameHash(row[column], hash) ? entryOf(row, kind) : undefined;
  });
  return entry && use(keys, ctx, entry);
}
