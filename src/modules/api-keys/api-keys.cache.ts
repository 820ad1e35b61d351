// Verification of secret and publishable keys: the hot path of every public call. A verified key is cached
// in process by the SHA-256 of the token, so a warm request costs a hash and a Map lookup and no database
// query. Correctness rests on invalidation, not on short lifetimes (src/db/bus-cache.ts):
// - a revocation or rotation notifies CHANNEL in its transaction; every process evicts the key at commit
//   (LISTEN/NOTIFY, about a millisecond on one host; the contract allows one second);
// - the process that made the change also evicts before it answers, so it never passes the key afterwards;
// - time-based expiry is checked at every verification from the cached `expires_at`.
// The state lives as long as the module (`createApiKeys`), and is handed to whoever verifies or presents keys.
import type { Context } from '../../context.ts';
import type { Bus } from '../../db/bus.ts';
import { BusCache } from '../../db/bus-cache.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import type { Resolved } from '../../http/public-auth.ts';
import { credentialKey, sameHash } from '../../lib/credentials.ts';
import { findUsableKeyByHash, recordLastUse, type ApiKeyRow } from './api-keys.repository.ts';

// Also named by the delete trigger of migration 0002.
export const CHANNEL = 'svc_api_keys';
type KeyKind = 'secret_key' | 'publishable_key';

// Only verified keys enter the cache, so it is bounded by the keys in use; the cap guards memory anyway.
const MAX_ENTRIES = 100_000;
const PUBLISHABLE_SCOPES: readonly string[] = Object.freeze(['public:read']);

interface Entry {
  keyId: string;
  expiresAt: number;
  principal: PublicPrincipal;
}

export interface KeyState {
  /** Verified keys by the base64 SHA-256 of the token; tagged by key id, so one eviction drops both tokens. */
  readonly verified: BusCache<Entry>;
  /** Last use per key id (epoch ms), written to the database in batches by `flushKeyUses`. */
  uses: Map<string, number>;
}

export function createKeyState(bus: Bus): KeyState {
  return {
    verified: new BusCache<Entry>(bus, { channel: CHANNEL, maxEntries: MAX_ENTRIES, tagOf: (e) => e.keyId }),
    uses: new Map(),
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
  keys.uses.set(entry.keyId, now);
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

/** This process's last use of a key not yet written to the database, if any. */
export function pendingUse(keys: KeyState, keyId: string): Date | undefined {
  const at = keys.uses.get(keyId);
  return at === undefined ? undefined : new Date(at);
}

/** Writes the last-use times gathered since the previous flush, in one statement. */
export async function flushKeyUses(keys: KeyState, ctx: Context): Promise<void> {
  if (keys.uses.size === 0) return;
  const batch = keys.uses;
  keys.uses = new Map();
  try {
    await recordLastUse(ctx.db, new Map([...batch].map(([id, at]) => [id, new Date(at)])));
  } catch (err) {
    // Keep the times for the next flush unless a newer use replaced them meanwhile.
    for (const [id, at] of batch) if (!keys.uses.has(id)) keys.uses.set(id, at);
    throw err;
  }
}
