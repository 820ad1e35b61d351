// Merchant interface authentication (API.md section 2): `Authorization: Bearer svc_mst_...` or the
// `svc_session` cookie. A state-changing call that rides on the cookie must come from our own origin, and every
// call from a member whose role the route's declared one (roles.ts), with the second factor the route and the
// merchant ask for (second-factor.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import type { Context } from '../context.ts';
import type { MerchantPrincipal } from './request.ts';
import { checkRole, requireDeclaredRole } from './roles.ts';
import { checkSecondFactor } from './second-factor.ts';

export const SESSION_COOKIE = 'svc_session';
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/** Verifies a merchant session token (the merchants module's). */
export type SessionResolver = (
  ctx: Context,
  token: string,
) => Promise<Omit<MerchantPrincipal, 'via'> | undefined>;

/** The signed-in merchant, `null` when no session was sent; throws for a session that does not verify. */
export async function resolveMerchant(
  request: FastifyRequest,
  authenticateSession: SessionResolver,
): Promise<MerchantPrincipal | null> {
  const bearer = bearerToken(request);
  const cookie = request.cookies[SESSION_COOKIE];
  const token = bearer ?? cookie;
  if (token === undefined) return null;
  const session = token ? await authenticateSession(request.server.ctx, token) : undefined;
  if (!session) throw new AppError('invalid_credential', 'The session is unknown, expired or signed out.');
  return { ...session, via: bearer !== undefined ? 'bearer' : 'cookie' };
}

/** No `Origin` (not a browser's cross-origin call), or our own: a form or call that came from our pages. */
export function fromOwnOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === new URL(request.server.ctx.config.publicUrl).origin;
}

export function checkOrigin(request: FastifyRequest, merchant: MerchantPrincipal): void {
  if (merchant.via !== 'cookie' || SAFE_METHODS.has(request.method)) return;
  if (!fromOwnOrigin(request)) {
    throw new AppError('forbidden', 'A cookie-authenticated change must come from the dashboard origin.');
  }
}

/**
 * The merchant interface's authentication, on its scope: an `onRequest` hook that resolves the session and
 * checks the origin and the route's role, and the start-up check that every route declares one.
 */
export function merchantAuth(scope: FastifyInstance, authenticateSession: SessionResolver): void {
  scope.addHook('onRoute', requireDeclaredRole);
  scope.addHook('onRequest', (request: FastifyRequest) => requireMerchant(request, authenticateSession));
}

async function requireMerchant(request: FastifyRequest, authenticateSession: SessionResolver): Promise<void> {
  if (request.routeOptions.config.anonymous) return;
  const merchant = await resolveMerchant(request, authenticateSession);
  if (!merchant)
    throw new AppError('unauthenticated', 'Sign in, then send the session as a Bearer token or cookie.');
  checkOrigin(request, merchant);
  checkRole(request, merchant.role);
  checkSecondFactor(request, merchant);
  request.merchant = merchant;
}
