// The dashboard SPA under /dashboard: hashed assets cached for a year, and index.html (never cached) for
// every other path below it, so each view's URL loads directly. `/` leads to the dashboard.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppError } from '../../lib/errors.ts';
import { SESSION_COOKIE } from '../../http/merchant-auth.ts';
import { DIST_DIR } from './build-web.ts';

export interface IndexCache {
  last: { mtimeMs: number; html: string } | undefined;
}

/** index.html, read again only when a new build replaced it. */
export async function indexHtml(cache: IndexCache): Promise<string | undefined> {
  const file = join(DIST_DIR, 'index.html');
  try {
    const { mtimeMs } = await stat(file);
    if (cache.last?.mtimeMs !== mtimeMs) cache.last = { mtimeMs, html: await readFile(file, 'utf8') };
    return cache.last.html;
  } catch {
    return undefined;
  }
}

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
  // The app's own copy: two apps in one process (tests) never serve each other's read.
  const cache: IndexCache = { last: undefined };

  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers(SECURITY_HEADERS);
    const html = await indexHtml(cache);
    if (html === undefined) return reply.code(503).type('text/html').send(NOT_BUILT);
    // The session cookie is HttpOnly, so the page cannot see it: tell it whether one was sent, so a
    // signed-out visitor goes straight to sign-in instead of through a 401 (a console error), and a
    // merchant who signed in on the OAuth consent page is signed in here too.
    const signedIn = request.cookies[SESSION_COOKIE] ? '1' : '0';
    // And whether sign-up is open (SVC_SIGNUP), so that a closed one offers no link to a page that is not.
    const signup = app.ctx.config.signup ? 'on' : 'off';
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(
        html.replace(
          '<head>',
          `<head><meta name="svc-session" content="${signedIn}"><meta name="svc-signup" content="${signup}">`,
        ),
      );
  };

  app.get('/', hidden, (_request, reply) => reply.redirect('/dashboard', 302));
  app.get('/favicon.ico', hidden, (_request, reply) =>
    reply.type('image/svg+xml').sendFile('favicon.svg', { maxAge: '1d' }),
  );
  app.get('/dashboard', hidden, sendIndex);
  app.get<{ Params: { '*': string } }>('/dashboard/*', hidden, (request, reply) => {
    const rest = request.params['*'];
    // Vite names assets by content hash: a new build is a new name, so they can be cached for good.
    if (rest.startsWith('assets/')) {
      // An old page asking for the assets of a build since replaced: a plain 404 (the shared not-found
      // handler would see this GET route and answer 405).
      const file = resolve(DIST_DIR, rest);
      if (!file.startsWith(`${DIST_DIR}/assets/`) || !existsSync(file)) {
        throw new AppError('not_found', 'No such file.');
      }
      return reply.sendFile(rest, { maxAge: '365d', immutable: true });
    }
    if (rest === 'favicon.svg') return reply.sendFile(rest, { maxAge: '1d' });
    return sendIndex(request, reply);
  });
};
