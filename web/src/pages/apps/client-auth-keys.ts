// What the owner pastes to switch an app to private_key_jwt (API.md section 12.3): a JWK or a JWKS, read here
// into the `jwks` of the PATCH, or refused in words before anything is sent. A private key is refused here,
// so it never leaves the browser; what only the service knows to check (a key's type, curve and size) comes
// back from it as `validation_failed` with the key named.

import type { PublicJwk } from '../../lib/types.ts';

export interface Jwks {
  keys: PublicJwk[];
}

export const MAX_KEYS = 5;
// RFC 7517 and 7518 section 6: members of a private or symmetric key, never in what an app registers.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pasted text as a JWKS, or what is wrong with it, in words. */
export function readJwks(text: string): { jwks: Jwks } | { problem: string } {
  if (!text.trim()) {
    return { problem: 'Paste a public key: a JWK (an object with "kty") or a JWKS (an object with "keys").' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'This is not JSON. Paste the key as your tool printed it: a JWK or a JWKS.' };
  }
  const keys = isObject(parsed) && Array.isArray(parsed.keys) ? (parsed.keys as unknown[]) : [parsed];
  if (!isObject(parsed) || (!('keys' in parsed) && !('kty' in parsed))) {
    return {
      problem: 'This JSON is neither a JWK (an object with "kty") nor a JWKS (an object with "keys").',
    };
  }
  if (keys.length === 0) return { problem: 'The JWKS has no key: paste at least one.' };
  if (keys.length > MAX_KEYS) {
    return { problem: `An app registers at most ${MAX_KEYS} keys; this JWKS has ${keys.length}.` };
  }
  for (const [i, key] of keys.entries()) {
    const which = keys.length === 1 ? 'The key' : `Key ${i + 1}`;
    if (!isObject(key) || typeof key.kty !== 'string') {
      return { problem: `${which} is not a JWK: it needs "kty".` };
    }
    const secret = PRIVATE_MEMBERS.filter((m) => m in key);
    if (secret.length > 0) {
      return {
        problem:
          `${which} is a private or secret key (it has ${secret.map((m) => `"${m}"`).join(', ')}). ` +
          'Paste only the public half, and keep the private key on your server: nothing was sent.',
      };
    }
  }
  return { jwks: { keys: keys as PublicJwk[] } };
}

/** The algorithm a registered key signs with (API.md 12.3: EdDSA, ES256 or RS256), from its own members. */
export function algorithmOf(jwk: PublicJwk): string {
  if (typeof jwk.alg === 'string') return jwk.alg;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  return jwk.kty;
}

/** The key's type as a person reads it. */
export function keyType(jwk: PublicJwk): string {
  if (jwk.kty === 'OKP') return `${String(jwk.crv ?? 'OKP')}`;
  if (jwk.kty === 'EC') return `EC ${String(jwk.crv ?? '')}`.trim();
  if (jwk.kty === 'RSA' && typeof jwk.n === 'string') {
    // the modulus in base64url: 4 characters per 3 bytes
    return `RSA ${Math.round((jwk.n.length * 6) / 8 / 32) * 256} bits`;
  }
  return jwk.kty;
}
