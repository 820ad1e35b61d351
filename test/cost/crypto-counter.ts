// Counts calls of node:crypto's synchronous operations. src/ imports them by name (`import { createHash } from
// 'node:crypto'`), and a named import of a builtin is a live binding that follows the CommonJS exports object
// only after `syncBuiltinESMExports()`: the wrappers are put on that object, then synced, and taken off and
// synced again by the answer. test/cost/meter.test.ts proves a named import in src/ is seen (it was not before
// the sync). Only the tests install it: src/ pays nothing.
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

/** What is counted: hashing, MACs, ciphers, signatures, key derivation and making, random bytes, comparisons. */
export const CRYPTO_OPS = [
  'createHash',
  'hash',
  'createHmac',
  'createCipheriv',
  'createDecipheriv',
  'createSign',
  'createVerify',
  'sign',
  'verify',
  'createPrivateKey',
  'createPublicKey',
  'hkdfSync',
  'pbkdf2Sync',
  'scrypt',
  'scryptSync',
  'timingSafeEqual',
  'randomBytes',
  'randomUUID',
  'randomInt',
] as const;
export type CryptoOp = (typeof CRYPTO_OPS)[number];

/** Reports each call of a counted operation, in the caller's async context, until the answer is called. */
export function countCrypto(sink: (op: CryptoOp) => void): () => void {
  const exports = crypto as unknown as Record<CryptoOp, (...args: unknown[]) => unknown>;
  const originals = new Map<CryptoOp, (...args: unknown[]) => unknown>();
  for (const op of CRYPTO_OPS) {
    const original = exports[op];
    originals.set(op, original);
    exports[op] = function (this: unknown, ...args: unknown[]) {
      sink(op);
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
  return () => {
    for (const [op, original] of originals) exports[op] = original;
    syncBuiltinESMExports();
  };
}
