// Compact JWS (RFC 7515) verification and JWK handling with node:crypto alone, for the two places a client
// signs: private_key_jwt assertions (RFC 7523) and DPoP proofs (RFC 9449). Three algorithms, those of
// API.md section 12.3: EdDSA (Ed25519), ES256 (P-256, raw r||s signatures) and RS256 (RSASSA-PKCS1-v1_5 with
// SHA-256, keys of at least 2048 bits). `none` and the HMAC algorithms are never accepted: a client's key is
// public, so a symmetric one would be a shared secret under another name. Failures are values (a reason),
// never throws: a malformed token is the client's mistake, not ours.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

export const JWS_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type JwsAlgorithm = (typeof JWS_ALGORITHMS)[number];

export type Jwk = Record<string, unknown>;

/** Members that only a private or symmetric key has (RFC 7517 and 7518 section 6): never in a client's JWKS. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
// RFC 7518 3.3: 2048 bits at least for RS256.
const MIN_RSA_BITS = 2048;

// RFC 9864 names Ed25519 by itself, "Ed25519", where RFC 8037 says "EdDSA": oauth4webapi signs with the new
// name, so both are taken for an Ed25519 key (the metadata lists the contract's EdDSA).
const ALIASES: Readonly<Record<string, JwsAlgorithm>> = { Ed25519: 'EdDSA' };

/** The algorithm a header or a JWK names, in the contract's terms; undefined for any other. */
function algorithmNamed(value: unknown): JwsAlgorithm | undefined {
  if (typeof value !== 'string') return undefined;
  if ((JWS_ALGORITHMS as readonly string[]).includes(value)) return value as JwsAlgorithm;
  return ALIASES[value];
}

/** The algorithm a key of this type signs with here, or undefined for a type we do not take. */
function algorithmOf(jwk: Jwk): JwsAlgorithm | undefined {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  return undefined;
}

export interface PublicJwk {
  readonly jwk: Jwk;
  readonly key: KeyObject;
  readonly alg: JwsAlgorithm;
  readonly kid: string | undefined;
}

/** A client's public key as the JWK it registered, or why it is refused. */
export function publicJwk(jwk: unknown): PublicJwk | { issue: string } {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return { issue: 'must be a JWK object' };
  const key = jwk as Jwk;
  if (PRIVATE_MEMBERS.some((m) => m in key)) {
    return { issue: 'must be a public key: remove the private members (d, p, q, dp, dq, qi, oth, k)' };
  }
  const alg = algorithmOf(key);
  if (!alg) return { issue: 'must be an Ed25519 (OKP), P-256 (EC) or RSA key' };
  if (key.alg !== undefined && algorithmNamed(key.alg) !== alg) {
    return { issue: `alg must be ${alg} for this key type` };
  }
  if (key.use !== undefined && key.use !== 'sig') return { issue: 'use must be sig' };
  if (
    key.kid !== undefined &&
    (typeof key.kid !== 'string' || key.kid.length === 0 || key.kid.length > 200)
  ) {
    return { issue: 'kid must be a string of 1-200 characters' };
  }
  let object: KeyObject;
  try {
    object = createPublicKey({ key, format: 'jwk' });
  } catch {
    return { issue: 'is not a valid key of its type' };
  }
  if (object.type !== 'public') return { issue: 'must be a public key' };
  if (alg === 'RS256' && (object.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    return { issue: `an RSA key must have at least ${MIN_RSA_BITS} bits` };
  }
  return { jwk: key, key: object, alg, kid: typeof key.kid === 'string' ? key.kid : undefined };
}

/** The members RFC 7638 hashes, by key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = {
  OKP: ['crv', 'kty', 'x'],
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
};

/** RFC 7638: the base64url SHA-256 of the key's required members, as JSON without whitespace, in order. */
export function jwkThumbprint(jwk: Jwk): string {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)] ?? [];
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The signed text, `header.payload`, and the signature's bytes. */
  signingInput: string;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function jsonPart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The three parts of a compact JWS, unverified; undefined when it is not one. */
export function decodeJws(token: string): DecodedJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p)) || parts[0] === '' || parts[2] === '') {
    return undefined;
  }
  const header = jsonPart(parts[0]!);
  const payload = jsonPart(parts[1]!);
  if (!header || !payload) return undefined;
  return {
    header,
    payload,
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: Buffer.from(parts[2]!, 'base64url'),
  };
}

/** Whether `jws` is signed by `key` with the algorithm its header names, which must be the key's. */
export function verifiedBy(jws: DecodedJws, key: PublicJwk): boolean {
  const alg = algorithmNamed(jws.header.alg);
  if (alg === undefined || alg !== key.alg) return false;
  const data = Buffer.from(jws.signingInput);
  try {
    if (alg === 'EdDSA') return verify(null, data, key.key, jws.signature);
    if (alg === 'ES256')
      return verify('sha256', data, { key: key.key, dsaEncoding: 'ieee-p1363' }, jws.signature);
    return verify('sha256', data, key.key, jws.signature);
  } catch {
    return false;
  }
}

/** RFC 9449 4.2 `ath`: the base64url SHA-256 of the access token's ASCII text. */
export const accessTokenHash = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');
