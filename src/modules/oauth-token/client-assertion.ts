// private_key_jwt (RFC 7523 2.2 and 3, API.md section 12.3): an app that registered public keys authenticates
// at the token, revocation and introspection endpoints with a JWT it signs, and no longer with its secret.
// The checks, each a reason the assertion is refused with invalid_client: a compact JWS signed with one of the
// app's keys (by `kid` when the header names one) in the key's own algorithm; `iss` and `sub` the client id;
// `aud` the issuer, the token endpoint's URL or the URL of the endpoint called; `exp` in the future and at most
// 5 minutes ahead (so that a `jti` is kept at most that long); `nbf` and `iat`, when present, not in the
// future; `jti` used once across every process (a row of oauth_jtis until `exp`, one INSERT).
import type { Context } from '../../context.ts';
import { decodeJws, verifiedBy, type DecodedJws } from '../../lib/jws.ts';
import { clientById, type ClientApp } from '../oauth-apps/index.ts';
import { useJti } from '../oauth/index.ts';
import { param, type Params } from './params.ts';
import { OAuthError, invalidClient } from './oauth.errors.ts';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const MAX_AHEAD_SECONDS = 300;
// A client's clock may run a little ahead of ours: `nbf` and `iat` that far in the future still pass.
const SKEW_SECONDS = 30;
const MAX_JTI = 255;

export interface AssertionInput {
  /** The request's parameters (client_assertion_type, client_assertion, client_id). */
  params: Params;
  /** The URL of the endpoint called, as the issuer serves it: an `aud` it may name. */
  endpointUrl: string;
}

export interface Asserted {
  client: ClientApp;
  assertion: string;
}

const refused = (why: string) => invalidClient(`Client assertion refused: ${why}`, false);

/** Whether the request authenticates by assertion: either parameter present. */
export function usesAssertion(params: Params): boolean {
  return params.client_assertion !== undefined || params.client_assertion_type !== undefined;
}

/** The app the assertion names, if any: so that its failures count against the app's budget. */
export async function assertingClient(
  ctx: Context,
  apps: Parameters<typeof clientById>[0],
  jws: DecodedJws | undefined,
): Promise<ClientApp | undefined> {
  const iss = jws?.payload.iss;
  return typeof iss === 'string' && iss.startsWith('svc_ca_') ? clientById(apps, ctx, iss) : undefined;
}

function checkClaims(ctx: Context, jws: DecodedJws, client: ClientApp, input: AssertionInput): number {
  const { payload } = jws;
  if (payload.sub !== client.clientId) throw refused('sub must be the client id.');
  const issuer = ctx.config.publicUrl;
  const accepted = [issuer, `${issuer}/api/public/v1/oauth/token`, input.endpointUrl];
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.some((a) => typeof a === 'string' && accepted.includes(a))) {
    throw refused('aud must be the issuer or the endpoint URL.');
  }
  const now = Math.floor(ctx.clock.now() / 1000);
  const exp = payload.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw refused('exp is required.');
  if (exp <= now) throw refused('it expired.');
  if (exp > now + MAX_AHEAD_SECONDS) throw refused('exp may be at most 5 minutes ahead.');
  for (const claim of ['nbf', 'iat'] as const) {
    const value = payload[claim];
    if (value === undefined) continue;
    if (typeof value !== 'number' || value > now + SKEW_SECONDS) throw refused(`${claim} is in the future.`);
  }
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI) {
    throw refused('jti is required (1-255 characters).');
  }
  return exp;
}

/**
 * The app an assertion authenticates, or an OAuthError (invalid_client, or invalid_request for a request
 * that mixes methods or leaves out a parameter). The caller counts failures.
 */
export async function verifyAssertion(
  ctx: Context,
  apps: Parameters<typeof clientById>[0],
  input: AssertionInput,
  authorization: string | undefined,
): Promise<Asserted & { jws: DecodedJws }> {
  const { params } = input;
  const type = param(params, 'client_assertion_type');
  const assertion = param(params, 'client_assertion');
  if (type !== ASSERTION_TYPE) {
    throw new OAuthError('invalid_request', `client_assertion_type must be ${ASSERTION_TYPE}.`);
  }
  if (!assertion) throw new OAuthError('invalid_request', 'client_assertion is required.');
  if (authorization !== undefined || param(params, 'client_secret') !== undefined) {
    throw new OAuthError('invalid_request', 'Use one client authentication method: the assertion alone.');
  }
  const jws = decodeJws(assertion);
  if (!jws) throw refused('it is not a compact JWS.');
  const client = await assertingClient(ctx, apps, jws);
  if (!client) throw refused('iss names no client.');
  const bodyId = param(params, 'client_id');
  if (bodyId !== undefined && bodyId !== client.clientId) throw refused('client_id differs from iss.');
  if (client.authMethod !== 'private_key_jwt') {
    throw refused('this client authenticates with its client secret, not private_key_jwt.');
  }
  const kid = jws.header.kid;
  const keys = typeof kid === 'string' ? client.keys.filter((k) => k.kid === kid) : client.keys;
  if (!keys.some((k) => verifiedBy(jws, k))) throw refused('the signature matches no registered key.');
  const exp = checkClaims(ctx, jws, client, input);
  const first = await useJti(ctx.db, {
    issuer: client.clientId,
    jti: jws.payload.jti as string,
    expiresAt: new Date(exp * 1000),
    now: new Date(ctx.clock.now()),
  });
  if (!first) throw refused('its jti was used before.');
  return { client, assertion, jws };
}
