// Client authentication at the token and revocation endpoints (RFC 6749 2.3): `client_secret_basic` (id and
// secret form-encoded, then base64) or `client_secret_post`, never both. Apps are confidential clients.
import type { Context } from '../../context.ts';
import { parseCredential } from '../../lib/credentials.ts';
import { storableText } from '../../http/text-guard.ts';
import { clientById, secretMatches, type ClientApp } from '../oauth-apps/index.ts';
import { OAuthError, invalidClient } from './oauth.errors.ts';

export type Params = Record<string, unknown>;

/** One value or none: RFC 6749 3.2 forbids repeated parameters, and an empty one counts as omitted. */
export function param(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new OAuthError('invalid_request', `${name} must be given once, as a string.`);
  }
  return value;
}

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

async function verify(ctx: Context, clientId: string, secret: string, basic: boolean): Promise<ClientApp> {
  const app = clientId.startsWith('svc_ca_') ? await clientById(ctx, clientId) : undefined;
  const parsed = parseCredential(secret);
  if (!app || parsed?.kind !== 'client_secret' || parsed.mode !== app.mode || !secretMatches(app, secret)) {
    throw invalidClient('Client authentication failed: unknown client or wrong secret.', basic);
  }
  return app;
}

export async function authenticateClient(
  ctx: Context,
  params: Params,
  authorization: string | undefined,
): Promise<ClientApp> {
  const basic = parseBasic(authorization);
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
    return verify(ctx, basic.id, basic.secret, true);
  }
  if (bodyId === undefined) {
    throw invalidClient('Authenticate the client: HTTP Basic, or client_id and client_secret.', false);
  }
  if (bodySecret === undefined) {
    throw invalidClient('client_secret is required: apps are confidential clients.', false);
  }
  return verify(ctx, bodyId, bodySecret, false);
}

// Guessing a 178-bit secret is hopeless, but failed attempts still cost lookups: past 100 failures a
// minute from one address, the endpoint answers 429 until the minute is over. Successful calls are never
// limited here, so a busy app refreshing thousands of tokens a second is not slowed.
const FAILURES_PER_MINUTE = 100;
const failures = new WeakMap<Context, Map<string, { count: number; resetAt: number }>>();

export function checkFailureBudget(ctx: Context, ip: string): void {
  if (!ctx.config.rateLimit) return;
  const entry = failures.get(ctx)?.get(ip);
  if (entry && entry.resetAt > Date.now() && entry.count >= FAILURES_PER_MINUTE) {
    const seconds = Math.ceil((entry.resetAt - Date.now()) / 1000);
    throw new OAuthError('rate_limited', 'Too many failed requests; retry later.', {
      'retry-after': String(seconds),
    });
  }
}

export function recordFailure(ctx: Context, ip: string): void {
  if (!ctx.config.rateLimit) return;
  let map = failures.get(ctx);
  if (!map) failures.set(ctx, (map = new Map<string, { count: number; resetAt: number }>()));
  const now = Date.now();
  const entry = map.get(ip);
  if (!entry || entry.resetAt <= now) {
    if (map.size > 10_000) map.clear();
    map.set(ip, { count: 1, resetAt: now + 60_000 });
  } else entry.count++;
}
