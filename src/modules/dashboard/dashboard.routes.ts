// The dashboard SPA under /dashboard: hashed assets cached for a year, and index.html (never cached) for
// every other path below it, so each view's URL loads directly. `/` leads to the dashboard.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_DIR } from './build-web.ts';

// The SPA loads only its own files and calls only its own origin; no framing (clickjacking of the
// show-once secret dialogs and of destructive buttons).
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Dashboard not built</title>
<p>The dashboard has not been built. Run <code>npm start</code> (it builds it) or
<code>npx vite build --config web/vite.config.ts</code>.</p>`;

const hidden = { schema: { hide: true } };

export const dashboardRoutes: FastifyPluginAsync = async (app) => {
  await app.register(fastifyStatic, { root: DIST_DIR, serve: false, index: false });

  const sendIndex = (reply: FastifyReply) => {
    void reply.headers(SECURITY_HEADERS);
    if (!existsSync(join(DIST_DIR, 'index.html'))) return reply.code(503).type('text/html').send(NOT_BUILT);
    return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  };

  app.get('/', hidden, (_request, reply) => reply.redirect('/dashboard', 302));
  app.get('/favicon.ico', hidden, (_request, reply) =>
    reply.type('image/svg+xml').sendFile('favicon.svg', { maxAge: '1d' }),
  );
  app.get('/dashboard', hidden, (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/dashboard/*', hidden, (request, reply) => {
    const rest = request.params['*'];
    // Vite names assets by content hash: a new build is a new name, so they can be cached for good.
    if (rest.startsWith('assets/')) return reply.sendFile(rest, { maxAge: '365d', immutable: true });
    if (rest === 'favicon.svg') return reply.sendFile(rest, { maxAge: '1d' });
    return sendIndex(reply);
  });
};
