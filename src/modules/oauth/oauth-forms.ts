// application/x-www-form-urlencoded bodies for the OAuth routes only (RFC 6749 uses them; the rest of the
// API stays JSON-only). A repeated name becomes an array, so the handlers can refuse it (RFC 6749 3.2).
import type { FastifyInstance } from 'fastify';

const FORM_LIMIT = 64 * 1024;

export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_request, body, done) => {
      const out = Object.create(null) as Record<string, string | string[]>;
      for (const [name, value] of new URLSearchParams(body as string)) {
        const previous = out[name];
        out[name] =
          previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
      }
      done(null, out);
    },
  );
}

export function isForm(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}
