// Verification of secret and publishable keys: the hot path of every public call. A verified key is cached
// in process by the SHA-256 of the token, so a warm request costs a hash and a Map lookup and no database
// query. Correctness rests on invalidation, not on short lifetimes:
// - a revocation or rotation notifies CHANNEL in its transaction; every process evicts the key at commit
//   (LISTEN/NOTIFY, about a millisecond on one host; the contract allows one second);
// - the process that made the change also evicts before it answers, so it never passes the key afterwards;
// - a lookup that raced with an eviction is not cached (the epoch moved while it read);
// - a lost listening connection clears everything (`onReset`), since notifications of the gap are gone;
// - time-based expiry is checked at every verification from the cached `expires_at`.
// Unknown tokens are not cached: a key that does not exist yet could be created a moment later.
import type { Context } from '../../context.ts';
import type { PublicPrincipal } from '../../http/request.ts';
import { hashCredential, sameHash } from '../../lib/credentials.ts';
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

interface State {
  entries: Map<string, Entry>;
  epoch: number;
  ready: Promise<void>;
  /** Last use per key id (epoch ms), written to the database in batches by `flushKeyUses`. */
  uses: Map<string, number>;
}

const states = new WeakMap<Context, State>();

function stateOf(ctx: Context): State {
  const existing = states.get(ctx);
  if (existing) return existing;
  const state: State = { entries: new Map(), epoch: 0, ready: Promise.resolve(), uses: new Map() };
  state.ready = ctx.bus
    .listen(CHANNEL, (keyId) => evict(state, keyId))
    .then(
      () => {},
      (err: unknown) => {
        states.delete(ctx); // the next verification tries to listen again
        throw err;
      },
    );
  ctx.bus.onReset(() => {
    state.entries.clear();
    state.epoch++;
  });
  states.set(ctx, state);
  return state;
}

function evict(state: State, keyId: string): void {
  state.epoch++;
  for (const [hash, entry] of state.entries) if (entry.keyId === keyId) state.entries.delete(hash);
}

/** Drops a changed key from this process at once (the notification reaches the others at commit). */
export function evictKey(ctx: Context, keyId: string): void {
  const state = states.get(ctx);
  if (state) evict(state, keyId);
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

function use(state: State, entry: Entry): PublicPrincipal | undefined {
  const now = Date.now();
  if (entry.expiresAt <= now) return undefined;
  state.uses.set(entry.keyId, now);
  return entry.principal;
}

export async function verifyKey(
  ctx: Context,
  token: string,
  kind: KeyKind,
): Promise<PublicPrincipal | undefined> {
  const state = stateOf(ctx);
  const hash = hashCredential(token);
  const id = hash.toString('base64');
  const hit = state.entries.get(id);
  if (hit) {
    ctx.metrics.cacheHit[kind].inc();
    return use(state, hit);
  }
  ctx.metrics.cacheMiss[kind].inc();

  await state.ready; // listening before reading: a change committed after this read is heard
  const epoch = state.epoch;
  const column = kind === 'secret_key' ? 'secret_key_hash' : 'publishable_key_hash';
  const row = await findUsableKeyByHash(ctx.db, column, hash);
  if (!row || !sameHash(row[column], hash)) return undefined;
  const entry = entryOf(row, kind);
  if (state.epoch === epoch) {
    if (state.entries.size >= MAX_ENTRIES) state.entries.delete(state.entries.keys().next().value!);
    state.entries.set(id, entry);
  }
  return use(state, entry);
}

/** This process's last use of a key not yet written to the database, if any. */
export function pendingUse(ctx: Context, keyId: string): Date | undefined {
  const at = states.get(ctx)?.uses.get(keyId);
  return at === undefined ? undefined : new Date(at);
}

/** Writes the last-use times gathered since the previous flush, in one statement. */
export async function flushKeyUses(ctx: Context): Promise<void> {
  const state = states.get(ctx);
  if (!state || state.uses.size === 0) return;
  const batch = state.uses;
  state.uses = new Map();
  try {
    await recordLastUse(ctx.db, new Map([...batch].map(([id, at]) => [id, new Date(at)])));
  } catch (err) {
    // Keep the times for the next flush unless a newer use replaced them meanwhile.
    for (const [id, at] of batch) if (!state.uses.has(id)) state.uses.set(id, at);
    throw err;
  }
}
