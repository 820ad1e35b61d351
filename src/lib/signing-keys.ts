// Ed25519 keys of the audit checkpoints (API.md section 11.5): the service signs with a private key made from
// a 32-byte seed (any 32 random bytes are one: `openssl rand -base64 32`, like the master key), and publishes
// the public half as a JWK (RFC 8037, OKP) whose `kid` is its RFC 7638 thumbprint, so that the same key has
// the same id on every process and after every restart. A seed may also be derived from a master key
// (`derivedSeed`), so that a deployment with only SVC_MASTER_KEY signs with a key that every process shares.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/** The DER prefix of a PKCS #8 Ed25519 private key (RFC 8410), before its 32-byte seed. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface SigningKey {
  readonly id: string;
  readonly privateKey: KeyObject;
  readonly jwk: Ed25519Jwk;
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, base64url. */
function thumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/** The public JWK of an Ed25519 key, from its public half `x` (base64url). */
export function publicJwk(x: string): Ed25519Jwk {
  return { kty: 'OKP', crv: 'Ed25519', x, kid: thumbprint(x), alg: 'EdDSA', use: 'sig' };
}

/**
 * The HKDF info of a checkpoint key derived from a master key (docs/operations.md): fixed, so that every
 * process derives the same key from the same master key, and distinct from every other use of that key.
 */
export const DERIVED_SEED_INFO = 'svc audit checkpoint signing key v1';

/** An Ed25519 seed derived from a 32-byte master key: HKDF-SHA256, no salt, info DERIVED_SEED_INFO. */
export function derivedSeed(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), DERIVED_SEED_INFO, 32));
}

export function signingKey(seed: Buffer): SigningKey {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = publicJwk(createPublicKey(privateKey).export({ format: 'jwk' }).x!);
  return { id: jwk.kid, privateKey, jwk };
}

/** A base64url Ed25519 signature of the UTF-8 text. */
export function signText(key: SigningKey, text: string): string {
  return sign(null, Buffer.from(text), key.privateKey).toString('base64url');
}

/** Whether `signature` (base64url) is `jwk`'s over the text; false for a key or signature of the wrong shape. */
export function verifyText(
  jwk: { kty?: unknown; crv?: unknown; x?: unknown },
  text: string,
  signature: string,
) {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    return verify(null, Buffer.from(text), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
