// DPoP at the token endpoint (RFC 9449 5): a request with a `DPoP` header gets its access token bound to the
// proof's key and `token_type: DPoP`. A request without one is untouched (no crypto, no statement). The
// refresh token stays unbound: every app is a confidential client, which authenticates at each refresh
// (RFC 9449 5), and each refresh's proof binds the access token it issues.
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { hashCredential } from '../../lib/credentials.ts';
import { bindAccessToken, htuOf, verifyDpopProof } from '../oauth/index.ts';
import { OAuthError } from './oauth.errors.ts';
import type { TokenAnswer } from './token-outcome.ts';

/** The proof's key thumbprint, undefined without a proof; a bad proof is 400 invalid_dpop_proof. */
export async function dpopKey(ctx: Context, request: FastifyRequest): Promise<string | undefined> {
  const proof = request.headers.dpop;
  if (proof === undefined) return undefined;
  if (typeof proof !== 'string') throw new OAuthError('invalid_dpop_proof', 'Send one DPoP proof.');
  const outcome = await verifyDpopProof(ctx, {
    proof,
    method: request.method,
    url: htuOf(ctx.config.publicUrl, request.url),
  });
  if ('error' in outcome) throw new OAuthError('invalid_dpop_proof', outcome.error);
  return outcome.jkt;
}

/** After the statement that issued the pair, before the answer: the access token bound, the type said. */
export async function bound(ctx: Context, tokens: TokenAnswer, jkt: string): Promise<TokenAnswer> {
  await bindAccessToken(ctx.db, hashCredential(tokens.access_token), jkt);
  return { ...tokens, token_type: 'DPoP' };
}
