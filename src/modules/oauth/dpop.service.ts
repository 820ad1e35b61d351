// DPoP proofs (RFC 9449 4.3): a JWT the client signs per request with a key whose public half it sends in the
// header. The checks, each a reason the proof is refused: `typ` dpop+jwt; an EdDSA, ES256 or RS256 public
// `jwk` in the header that verifies the signature; `htm` the request's method and `htu` its URL without query
// or fragment; `iat` within 60 s of now; `ath`, when a token is presented, its SHA-256; `jti` used once per key
// across every process (oauth_jtis, until the proof can no longer be accepted). The key's RFC 7638 thumbprint
// (`jkt`) is what a bound token names.
import type { Context } from '../../context.ts';
import { accessTokenHash, decodeJws, jwkThumbprint, publicJwk, verifiedBy } from '../../lib/jws.ts';
import { useJti } from './jtis.repository.ts';

/** RFC 9449 11.1: how far `iat` may be from now, either way. */
const IAT_WINDOW_SECONDS = 60;
const MAX_JTI = 255;

export interface DpopCheck {
  /** The proof: the `DPoP` header's value. */
  proof: string;
  method: string;
  /** The request's URL as the issuer serves it, without query or fragment. */
  url: string;
  /** The access token presented with it (the public API): `ath` must be its hash. */
  accessToken?: string;
}

export type DpopOutcome = { jkt: string } | { error: string };

/** The URL a proof's `htu` must name: scheme, host and path, no query or fragment (RFC 9449 4.3). */
export function htuOf(publicUrl: string, requestUrl: string): string {
  const q = requestUrl.indexOf('?');
  return `${publicUrl}${q === -1 ? requestUrl : requestUrl.slice(0, q)}`;
}

function sameUrl(htu: unknown, expected: string): boolean {
  if (typeof htu !== 'string') return false;
  try {
    const a = new URL(htu);
    const b = new URL(expected);
    return a.origin === b.origin && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

/** The proof's key thumbprint, or why it is refused. Records its `jti` last, when all else holds. */
export async function verifyDpopProof(ctx: Context, check: DpopCheck): Promise<DpopOutcome> {
  const jws = decodeJws(check.proof);
  if (!jws) return { error: 'The DPoP proof is not a compact JWS.' };
  if (jws.header.typ !== 'dpop+jwt') return { error: 'The DPoP proof must have typ dpop+jwt.' };
  const key = publicJwk(jws.header.jwk);
  if ('issue' in key) return { error: `The DPoP proof's jwk ${key.issue}.` };
  if (!verifiedBy(jws, key)) return { error: 'The DPoP proof is not signed by its jwk.' };
  const { payload } = jws;
  if (payload.htm !== check.method) return { error: 'The DPoP proof is for another method (htm).' };
  if (!sameUrl(payload.htu, check.url)) return { error: 'The DPoP proof is for another URL (htu).' };
  const now = ctx.clock.now() / 1000;
  const iat = payload.iat;
  if (typeof iat !== 'number' || Math.abs(iat - now) > IAT_WINDOW_SECONDS) {
    return { error: 'The DPoP proof was not made within the last 60 seconds (iat).' };
  }
  if (check.accessToken !== undefined && payload.ath !== accessTokenHash(check.accessToken)) {
    return { error: 'The DPoP proof is for another access token (ath).' };
  }
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI) {
    return { error: 'The DPoP proof needs a jti (1-255 characters).' };
  }
  const jkt = jwkThumbprint(key.jwk);
  const first = await useJti(ctx.db, {
    issuer: `dpop:${jkt}`,
    jti,
    // past the last moment the proof's iat is acceptable, whichever side of now it is
    expiresAt: new Date((Math.max(iat, now) + IAT_WINDOW_SECONDS) * 1000),
    now: new Date(ctx.clock.now()),
  });
  if (!first) return { error: 'The DPoP proof was used before (jti).' };
  return { jkt };
}
