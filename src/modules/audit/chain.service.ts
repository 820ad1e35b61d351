// What the chain proves, served: the signed checkpoint of its tip, the public keys that verify it, and the
// service's own check of the whole chain (the Logs tab's "verified up to entry N at T").
import type { Context } from '../../context.ts';
import { ChainWalk, checkpointMessage, GENESIS_HASH } from '../../lib/audit-chain.ts';
import { signText } from '../../lib/signing-keys.ts';
import type { Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { chainTip, sealedChunk, unsealedCount, type SealedRow } from './chain.repository.ts';
import { outsideChain } from './outside-chain.repository.ts';
import type { Sealer } from './sealer.service.ts';
import type { ChainKeys } from './signing-keys.service.ts';

/** Entries read per round trip by the chain check. */
const CHECK_CHUNK = 2_000;

/**
 * A signed statement of the chain's tip as of now: what was committed before the call is sealed first.
 * Before any entry, the empty chain: sequence 0 and the 64 zeros the first entry will chain onto.
 */
export async function checkpoint(ctx: Context, sealer: Sealer, keys: ChainKeys, scope: Scope) {
  await sealer.catchUp();
  const tip = await chainTip(ctx.db, scope);
  const body = {
    merchant_id: scope.merchantId,
    mode: scope.mode,
    sequence: tip?.sequence ?? 0,
    hash: tip?.hash ?? GENESIS_HASH,
    signed_at: iso(new Date(ctx.clock.now())),
  };
  return { ...body, key_id: keys.signing.id, signature: signText(keys.signing, checkpointMessage(body)) };
}

export interface ChainState {
  /**
   * `broken` when the chain does not hold; else `outside_chain` when the log has entries the chain does not
   * cover; else `verified`.
   */
  state: 'verified' | 'broken' | 'outside_chain';
  /** The newest entry up to which every entry recomputes and links, from the first one. */
  verified_through: { sequence: number; hash: string; created_at: string } | null;
  /** Where the check stopped, when it did. */
  broken: { sequence: number; id: string; issue: string } | null;
  /** Entries not sealed yet (their hash is null): written in the last seconds. */
  unsealed: number;
  /** Entries neither sealed nor queued, which no writer of the service made: never to be sealed. */
  outside_chain: number;
  /** The oldest of them. */
  first_outside_chain: { id: string; created_at: string } | null;
  checked_at: string;
}

const sealedEntry = (r: SealedRow) => ({ ...r, created_at: iso(r.created_at) });

/**
 * Recomputes the whole chain from its first entry, as `svc audit verify` does over an export: every hash,
 * every link, no gap. Reads CHECK_CHUNK entries per round trip; its cost grows with the chain, so concurrent
 * checks of one chain in a process share one run (`sharedChecks`). Entries removed from the newest end leave
 * no gap to find: that is what a kept checkpoint is for. Entries inserted beside the chain (by hand, never
 * sealed) are not in it to break it: they are counted apart, through an index that holds only them.
 */
export async function checkChain(ctx: Context, scope: Scope): Promise<ChainState> {
  const walk = new ChainWalk();
  let broken: ChainState['broken'] = null;
  for (let from: number | undefined = 0; from !== undefined && broken === null;) {
    const chunk = await sealedChunk(ctx.db, scope, {}, 'asc', from, CHECK_CHUNK);
    for (const row of chunk.rows) {
      const entry = sealedEntry(row);
      const found =
        walk.count === 0 && entry.sequence !== 1
          ? `the chain starts at sequence ${entry.sequence}: entries 1 to ${entry.sequence - 1} are missing`
          : walk.add(entry, entry.sequence)?.issue;
      if (found) {
        broken = { sequence: entry.sequence, id: entry.id, issue: found };
        break;
      }
    }
    from = chunk.last;
  }
  const last = walk.last;
  const outside = await outsideChain(ctx.db, scope);
  return {
    state: broken ? 'broken' : outside.count > 0 ? 'outside_chain' : 'verified',
    verified_through: last ? { sequence: last.sequence, hash: last.hash, created_at: last.created_at } : null,
    broken,
    unsealed: await unsealedCount(ctx.db, scope),
    outside_chain: outside.count,
    first_outside_chain: outside.first
      ? { id: outside.first.id, created_at: iso(outside.first.created_at) }
      : null,
    checked_at: iso(new Date(ctx.clock.now())),
  };
}

/** One check per chain at a time in a process: a second caller while one runs gets its answer. */
export function sharedChecks(ctx: Context) {
  const running = new Map<string, Promise<ChainState>>();
  return (scope: Scope): Promise<ChainState> => {
    const key = `${scope.merchantId} ${scope.mode}`;
    let check = running.get(key);
    if (!check) {
      check = checkChain(ctx, scope).finally(() => running.delete(key));
      running.set(key, check);
    }
    return check;
  };
}
