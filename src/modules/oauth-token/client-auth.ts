// Client authentication at the token, revocation and introspection endpoints (RFC 6749 2.3): `client_secret_basic` (id and
// secret form-encoded, then base64) or `client_secret_post`, never both; or, for an app that switched to it,
// `private_key_jwt` (RFC 7523, client-assertion.ts), which then refuses the secret. Apps are confidential clients.
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { parseCredential } from '../../lib/credentials.ts';
import { storableText } from '../../http/text-guard.ts';
import { createFailureLimiter, retryAfterSeconds, type FailureLimiter } from '../../lib/failure-limiter.ts';
import type { Clock } from '../../lib/time.ts';
import { clientById, secretMatches, type AppsCache, type ClientApp } from '../oauth-apps/index.ts';
import { decodeJws } from '../../lib/jws.ts';
import { assertingClient, usesAssertion, verifyAssertion } from './client-assertion.ts';
import { OAuthError, invalidClient } from './oauth.errors.ts';
import { param, type Params } from './params.ts';

export { param, type Params } from './params.ts';

function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

interface Basic {
  id: string;
  secret: string;
}

function parseBasic(header: string | undefined): Basic | undefined {
  if (!header) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/=._~-]*)\s*$/i.exec(header);
  if (!match) {
    if (/^Basic\b/i.test(header)) throw invalidClient('The Basic credentials are malformed.', true);
    return undefined;
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw invalidClient('The Basic credentials are malformed.', true);
  let basic: Basic;
  try {
    basic = { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('The Basic credentials are malformed.', true);
  }
  // decoded here, so the edge's text check (src/http/text-guard.ts) has not seen them
  if (!storableText(basic.id) || !storableText(basic.secret)) {
    throw invalidClient('The Basic credentials are malformed.', true);
  }
  return basic;
}

// Failed client authentications: limited per client and per address, after the secret was checked, so a
// right secret always passes (docs/decisions/0083-client-authentication-limits.md). A client
// secret carries 178 random bits: the limits do not protect it from guessing, which is hopeless; they tell
// a misconfigured or hostile caller to back off, with Retry-After, instead of answering each failure alike.
// Per app: 20 failures, then 1 s, 2 s, 4 s ... up to 5 min. Per address: 50, then the same.
const PER_CLIENT = { free: 20, baseMs: 1000, maxMs: 5 * 60_000, forgetMs: 10 * 60_000 };
const PER_ADDRESS = { free: 50, baseMs: 1000, maxMs: 5 * 60_000, forgetMs: 10 * 60_000 };

/** The failure budgets of one process, made by createOauthToken. */
/** What client authentication keeps: its failure budgets, and the oauth-apps module's client cache. */
export interface ClientAuthLimits {
  readonly clients: FailureLimiter;
  readonly addresses: FailureLimiter;
  readonly apps: AppsCache;
}

export function clientAuthLimits(apps: AppsCache, clock: Clock): ClientAuthLimits {
  return {
    clients: createFailureLimiter(PER_CLIENT, clock),
    addresses: createFailureLimiter(PER_ADDRESS, clock),
    apps,
  };
}

/**
 * Counts a failed authentication: against the app when the client_id names one (an unknown id would let
 * anyone fill the table with made-up keys), and against the address. Past either budget the failure
 * answers 429 with Retry-After instead of 401.
 */
function failed(
  ctx: Context,
  limits: ClientAuthLimits,
  error: OAuthError,
  app: ClientApp | undefined,
  ip: string | undefined,
): OAuthError {
  if (!ctx.config.rateLimit) return error;
  const wait = Math.max(app ? limits.clients.fail(app.clientId) : 0, ip ? limits.addresses.fail(ip) : 0);
  if (wait === 0) return error;
  return new OAuthError('rate_limited', 'Too many failed client authentications; retry later.', {
    'retry-after': retryAfterSeconds(wait),
  });
}

/** A failed authentication of another kind (introspection's internal token), on the same address budget. */
export function failedCaller(
  ctx: Context,
  limits: ClientAuthLimits,
  error: OAuthError,
  ip: string | undefined,
): OAuthError {
  return failed(ctx, limits, error, undefined, ip);
}

async function verify(
  ctx: Context,
  limits: ClientAuthLimits,
  clientId: string,
  secret: string,
  basic: boolean,
  ip: string | undefined,
): Promise<ClientApp> {
  const app = clientId.startsWith('svc_ca_') ? await clientById(limits.apps, ctx, clientId) : undefined;
  const parsed = parseCredential(secret);
  if (
    !app ||
    parsed?.kind !== 'client_secret' ||
    parsed.mode !== app.mode ||
    !secretMatches(app, secret, ctx.clock.now())
  ) {
    const error = invalidClient('Client authentication failed: unknown client or wrong secret.', basic);
    throw failed(ctx, limits, error, app, ip);
  }
  // RFC 7523: once the app registered keys and switched, its secret no longer authenticates it.
  if (app.authMethod === 'private_key_jwt') {
    const error = invalidClient(
      'This client authenticates with private_key_jwt: send client_assertion, not the client secret.',
      basic,
    );
    throw failed(ctx, limits, error, app, ip);
  }
  return app;
}

/**
 * The authenticated app. A right secret (of an app on a secret method) or a right assertion is never refused,
 * whatever others' failures; failures are limited
 * per app and per client address (`request.ip`). The request is then recorded in the request log of the
 * app's merchant (API.md section 11.6).
 */
export async function authenticateClient(
  ctx: Context,
  limits: ClientAuthLimits,
  params: Params,
  request: FastifyRequest,
): Promise<ClientApp> {
  const { client, secret } = usesAssertion(params)
    ? await assertedClient(ctx, limits, params, request)
    : await verifiedClient(ctx, limits, params, request.headers.authorization, request.ip);
  request.caller = {
    merchantId: client.merchantId,
    mode: client.mode,
    type: 'client_secret',
    id: client.id,
    last4: secret.slice(-4),
  };
  return client;
}

/** private_key_jwt: the assertion's app; its failures count as a wrong secret's do. */
async function assertedClient(
  ctx: Context,
  limits: ClientAuthLimits,
  params: Params,
  request: FastifyRequest,
): Promise<{ client: ClientApp; secret: string }> {
  const endpointUrl = `${ctx.config.publicUrl}${request.url.split('?')[0] ?? ''}`;
  try {
    const { client, assertion } = await verifyAssertion(
      ctx,
      limits.apps,
      { params, endpointUrl },
      request.headers.authorization,
    );
    return { client, secret: assertion };
  } catch (err) {
    if (!(err instanceof OAuthError) || err.error !== 'invalid_client') throw err;
    const assertion = params.client_assertion;
    const app = await assertingClient(
      ctx,
      limits.apps,
      typeof assertion === 'string' ? decodeJws(assertion) : undefined,
    );
    throw failed(ctx, limits, err, app, request.ip);
  }
}

async function verifiedClient(
  ctx: Context,
  limits: ClientAuthLimits,
  params: Params,
  authorization: string | undefined,
  ip: string | undefined,
): Promise<{ client: ClientApp; secret: string }> {
  let basic: Basic | undefined;
  try {
    basic = parseBasic(authorization);
  } catch (err) {
    throw err instanceof OAuthError ? failed(ctx, limits, err, undefined, ip) : err;
  }
  const bodyId = param(params, 'client_id');
  const bodySecret = param(params, 'client_secret');
  if (basic) {
    if (bodySecret !== undefined) {
      throw new OAuthError(
        'invalid_request',
        'Use one client authentication method: HTTP Basic or client_secret in the body, not both.',
      );
    }
    if (bodyId !== undefined && bodyId !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the Basic credentials.');
    }
    return { client: await verify(ctx, limits, basic.id, basic.secret, true, ip), secret: basic.secret };
  }
  if (bodyId === undefined) {
    throw invalidClient('Authenticate the client: HTTP Basic, or client_id and client_secret.', false);
  }
  if (bodySecret === undefined) {
    throw invalidClient('client_secret is required: apps are confidential clients.', false);
  }
  return { client: await verify(ctx, limits, bodyId, bodySecret, false, ip), secret: bodySecret };
}
