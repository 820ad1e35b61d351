// Headers every answer carries, set once for every route in the one onRequest step (contract.ts; a route may
// still override them):
// - `X-Content-Type-Options: nosniff` everywhere, so no answer is ever sniffed into something executable;
// - HSTS when the public URL is https (the service is then only meant to be reached over TLS);
// - `Cache-Control: no-store` under /api, /auth, /oauth and /internal: those answers may carry a secret or
//   a session (created keys, rotations, sign-in, app secrets), and none is meant for a shared cache;
// - on /docs a Content-Security-Policy that lets the reference run only its own script (the inline
//   bootstrap by hash), and no framing.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { addRouteHook } from './route-hooks.ts';

// One year, the value HSTS preload lists ask for. No includeSubDomains: the operator's other hosts are
// not ours to decide.
export const HSTS = 'max-age=31536000';
export const NO_STORE = /^\/(api|auth|oauth|internal)(\/|\?|$)/;
export const DOCS = /^\/docs(\/|\?|$)/;
const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/** The policy of a /docs page: its inline scripts allowed by their SHA-256, nothing from elsewhere. */
export function docsPolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    // Scalar sets styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of a /docs page with inline scripts, known only from the page: an onSend hook on /docs alone.
 * The headers of every answer are set in the one onRequest step (contract.ts).
 */
export function docsSecurityPolicy(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!DOCS.test(route.url)) return;
    addRouteHook(route, 'onSend', (_request, reply, payload, done) => {
      if (typeof payload === 'string' && payload.includes('<script')) {
        void reply.header('content-security-policy', docsPolicy(payload));
      }
      done(null, payload);
    });
  });
}
