// The keys of the audit checkpoints (API.md section 11.5): this process signs with the first key of its
// configuration, and publishes, as the JWKS, the keys of its configuration and every key any process has
// recorded (migration 0071). Each process records the keys it starts with before it serves, so a key that
// signed a checkpoint is published by every process from then on, and stays published after the rotations
// that drop it from the configuration (SVC_AUDIT_SIGNING_KEYS, or SVC_MASTER_KEY that the keys are derived
// from). The JWKS is cached per process, and dropped by every process when a new key is recorded: the
// record notifies KEYS_CHANNEL in its transaction, heard at its commit (the shared BusCache).
import type { Context } from '../../context.ts';
import { notify } from '../../db/bus.ts';
import { BusCache } from '../../db/bus-cache.ts';
import { publicJwk, signingKey, type Ed25519Jwk, type SigningKey } from '../../lib/signing-keys.ts';
import { recordedKeys, recordKeys } from './signing-keys.repository.ts';

export const KEYS_CHANNEL = 'svc_audit_keys';
const JWKS = 'jwks';

export interface Jwks {
  keys: Ed25519Jwk[];
}

export interface ChainKeys {
  /** The key that signs this process's checkpoints: the first of its configuration. */
  readonly signing: SigningKey;
  /** The JWKS: the configured keys, the signing one first, then every other recorded key, newest first. */
  published(): Promise<Jwks>;
  /** Records the configured keys' public halves (once per process, before it serves). */
  record(): Promise<void>;
}

export function createChainKeys(ctx: Context): ChainKeys {
  const configured = ctx.config.auditSigningKeys.map(signingKey);
  // One entry, dropped by any notification on the channel (its tag is the channel's only one); a JWKS of
  // a hundred keys is about 30 KB.
  const cache = new BusCache<Jwks>(ctx.bus, { channel: KEYS_CHANNEL, maxBytes: 2 ** 20, tagOf: () => JWKS });
  const union = async (): Promise<Jwks> => {
    const keys = configured.map((k) => k.jwk);
    for (const x of await recordedKeys(ctx.db)) {
      const jwk = publicJwk(x);
      if (!keys.some((k) => k.kid === jwk.kid)) keys.push(jwk);
    }
    return { keys };
  };
  return {
    signing: configured[0]!,
    published: async () => cache.get(JWKS) ?? (await cache.load([JWKS], union))!,
    record: async () => {
      const keys = configured.map((k) => ({ kid: k.id, x: k.jwk.x }));
      const added = await ctx.db.transaction().execute(async (trx) => {
        const n = await recordKeys(trx, keys, new Date(ctx.clock.now()));
        if (n > 0) await notify(trx, KEYS_CHANNEL, JWKS);
        return n;
      });
      if (added > 0) cache.evict(JWKS);
    },
  };
}
