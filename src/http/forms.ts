// application/x-www-form-urlencoded bodies for the OAuth routes only (RFC 6749 uses them; the rest of the
// API stays JSON-only). @fastify/formbody's parser (fast-querystring) turns a repeated name into an array,
// so the handlers can refuse it (RFC 6749 3.1, 3.2), and builds an object without a prototype, so a
// `__proto__` or `constructor` field is a field like any other.
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';

const FORM_LIMIT = 64 * 1024;

/**
 * Adds the form parser to `app`'s scope: the plugin skips encapsulation, so registered in a route plugin it
 * parses forms for that plugin's routes only.
 */
export function acceptForms(app: FastifyInstance): void {
  void app.register(formbody, { bodyLimit: FORM_LIMIT });
}

export function isForm(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}
