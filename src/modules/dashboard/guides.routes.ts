// The integrator guides on the running service: /guides/<name> is the page (HTML in the dashboard's look,
// with this service's address and, for a signed-in merchant, its own ids and test key in the snippets);
// /guides/<name>.md is the Markdown as written, for tools and `curl`, except that a browser navigating there
// (it asks for HTML first) is sent to the page, so links written to the Markdown (the API reference's) land
// on the page. A fixed list: no path from the URL reaches the disk.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { SESSION_COOKIE } from '../../http/merchant-auth.ts';
import { errors } from '../../http/schemas.ts';
import { notFound } from '../../lib/errors.ts';
import { newestPublishableKey } from '../api-keys/index.ts';
import { firstStore } from '../merchants/index.ts';
import { authenticateSession } from '../identity/index.ts';
import { indexHtml, type IndexCache } from './dashboard.routes.ts';
import { GUIDES, renderGuide, withAccount, type Account, type Guide } from './guides.ts';

const ROOT = join(import.meta.dirname, '../../..');

// Pages without any script; styles from the dashboard's own stylesheet only; no framing.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  // The page shows the signed-in merchant's ids and key: never kept by a shared cache, never served to
  // another cookie.
  'cache-control': 'no-store',
  vary: 'Cookie',
};

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The signed-in merchant's ids and newest test publishable key; undefined when no valid session was sent. */
async function accountOf(ctx: Context, request: FastifyRequest): Promise<Account | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  const session = token ? await authenticateSession(ctx, token) : undefined;
  if (!session) return undefined;
  const [store, publishableKey] = await Promise.all([
    firstStore(ctx.db, session.merchantId),
    newestPublishableKey(ctx.db, { merchantId: session.merchantId, mode: 'test' }),
  ]);
  return { merchantId: session.merchantId, storeId: store?.id, publishableKey };
}

function accountNote(account: Account | undefined): string {
  if (!account) {
    return (
      '<p class="guide-account">Showing placeholders. <a href="/dashboard">Sign in</a> to see your own ids and ' +
      'test keys in the snippets.</p>'
    );
  }
  const key = account.publishableKey
    ? `, test publishable key <code>${escape(account.publishableKey)}</code>`
    : ' (make a test key pair under <a href="/dashboard/settings/developers/keys">Credentials</a> to see ' +
      'its publishable key here)';
  return (
    `<p class="guide-account">The snippets show your account: merchant <code>${escape(account.merchantId)}</code>` +
    (account.storeId ? `, store <code>${escape(account.storeId)}</code>` : '') +
    `${key}. Secret keys are shown once, when made, and never here.</p>`
  );
}

function page(guide: Guide | undefined, body: string, stylesheet: string | undefined): string {
  const nav = GUIDES.map(
    (g) =>
      `<li><a href="/guides/${g.name}"${g === guide ? ' aria-current="page"' : ''}>${escape(g.title)}</a></li>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(guide ? `${guide.title} · ` : '')}Guides · svc</title>
<link rel="icon" type="image/svg+xml" href="/dashboard/favicon.svg">
${stylesheet ? `<link rel="stylesheet" href="${escape(stylesheet)}">` : ''}
</head>
<body class="guide-page">
<a class="skip-link" href="#guide">Skip to content</a>
<header class="topbar"><div class="topbar-inner">
<a class="logo" href="/dashboard">svc</a><span class="merchant-name">Guides</span>
<span class="topbar-actions"><a class="btn btn-small" href="/dashboard">Dashboard</a></span>
</div></header>
<div class="container guide-layout">
<nav class="guide-nav" aria-label="Guides"><ul>${nav}</ul></nav>
<main id="guide" class="card guide">${body}</main>
</div>
</body>
</html>
`;
}

/** A browser navigating asks for HTML first; tools (curl, fetch) ask for anything. */
const wantsHtml = (request: FastifyRequest) => {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html') && !accept.includes('text/markdown');
};

export const guideRoutes: FastifyPluginAsync = async (app) => {
  // Read once at start: the guides change with a release, not while the process runs.
  const texts = new Map(GUIDES.map((g) => [g.name, readFileSync(join(ROOT, g.file), 'utf8')]));
  // Each page rendered on its first request (this app's own), then only filled in.
  const rendered = new Map<string, string>();
  // The app's own copy of the dashboard's page, for its stylesheet's hashed name.
  const cache: IndexCache = { last: undefined };
  const stylesheet = async () =>
    /<link rel="stylesheet"[^>]*href="([^"]+)"/.exec((await indexHtml(cache)) ?? '')?.[1];

  const sendPage = async (reply: FastifyReply, guide: Guide | undefined, body: string) =>
    reply
      .headers(PAGE_HEADERS)
      .type('text/html; charset=utf-8')
      .send(page(guide, body, await stylesheet()));

  app.get(
    '/guides',
    {
      schema: {
        operationId: 'listGuides',
        summary: 'The integrator guides, as a page',
        tags: ['Health'],
        response: { 200: Type.String() },
      },
    },
    async (_request, reply) => {
      const list = GUIDES.map(
        (g) => `<li><a href="/guides/${g.name}">${escape(g.title)}</a>: ${escape(g.summary)}</li>`,
      ).join('');
      return sendPage(reply, undefined, `<h1>Guides</h1><ul class="guide-list">${list}</ul>`);
    },
  );

  app.get(
    '/guides/:name',
    {
      schema: {
        operationId: 'getGuide',
        summary: 'An integrator guide, as a page or as Markdown',
        tags: ['Health'],
        description:
          `${GUIDES.map((g) => g.name).join(', ')}: the page (HTML, with the signed-in merchant's ids in the ` +
          'snippets), or with `.md` the Markdown (a browser asking for HTML is redirected to the page).',
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.String(), ...errors(404) },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const markdown = name.endsWith('.md');
      const guide = GUIDES.find((g) => g.name === (markdown ? name.slice(0, -3) : name));
      if (!guide) throw notFound('guide');
      const text = texts.get(guide.name)!;
      if (markdown) {
        void reply.header('vary', 'Accept');
        if (wantsHtml(request)) return reply.redirect(`/guides/${guide.name}`, 303);
        return reply
          .type('text/markdown; charset=utf-8')
          .header('x-content-type-options', 'nosniff')
          .send(text);
      }
      let html = rendered.get(guide.name);
      if (html === undefined)
        rendered.set(guide.name, (html = renderGuide(guide, text, app.ctx.config.publicUrl)));
      const account = await accountOf(app.ctx, request);
      return sendPage(reply, guide, accountNote(account) + withAccount(html, account));
    },
  );
};
