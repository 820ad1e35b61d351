// CORS on the public interface (API.md section 6, "Browsers"): a publishable key must work from any web
// page, as Stripe.js does with Stripe's. `Access-Control-Allow-Origin: *` and no credentials mode: the
// public interface takes bearer credentials only, never cookies, so no answer reflects an origin. The
// merchant interface, the dashboard and the OAuth protocol endpoints stay same-origin (no CORS headers): the
// token, revoke and introspection endpoints take a client secret, which belongs on a server.
// Set in the one onRequest step (contract.ts) before the mode check and the public authentication, so that
// their errors carry the headers too and a preflight (which has no Authorization header) is answered before
// authentication.
import type { FastifyInstance } from 'fastify';

export const PUBLIC_PREFIX = '/api/public/v1/';
export const OAUTH_PREFIX = '/api/public/v1/oauth/';

export const ALLOWED_HEADERS = 'Authorization, X-Svc-Mode, Idempotency-Key, Content-Type';
// What a page's script may read: the request id for support, the rate-limit headers to back off, and the
// idempotent replay marker.
export const EXPOSED_HEADERS =
  'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, WWW-Authenticate';
// Chromium caps a preflight cache at 7200 s and Firefox at 86400 s; 2 h means one preflight per path and
// page session in practice.
export const MAX_AGE_S = 7200;

export const isPublicApiPath = (url: string): boolean =>
  url.startsWith(PUBLIC_PREFIX) && !url.startsWith(OAUTH_PREFIX);

/** The methods the path answers (from the route table), for `Access-Control-Allow-Methods`. */
export function methodsOf(app: FastifyInstance, url: string): string {
  const path = url.split('?')[0]!;
  const methods = new Set<string>();
  for (const route of app.routeTable) {
    if (route.pattern.test(path)) route.methods.forEach((m) => methods.add(m));
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}
