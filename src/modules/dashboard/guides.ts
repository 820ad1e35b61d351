// The integrator guides as HTML pages: the Markdown of docs/ rendered by markdown-it (raw HTML in the
// Markdown is escaped, not passed through), then put through sanitize-html's allowlist, so a page carries no
// script, no inline style and no attribute beyond those listed (the pages' CSP forbids both anyway). The
// snippets are the running service's: its base URL for the `http://127.0.0.1:4000` the files are written
// with, and for a signed-in merchant its own ids and test publishable key for the placeholders (as Stripe's
// docs fill in your keys). A secret key is shown once and kept hashed, so `svc_test_sk_...` stays as it is.
// A page is rendered once per process (5-160 ms each here); the account is filled in per request.
import markdownIt, { type MarkdownIt } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { posix } from 'node:path';

export interface Guide {
  /** The page: /guides/<name>; the Markdown: /guides/<name>.md. */
  name: string;
  /** The file, from the repository's root. */
  file: string;
  title: string;
  /** What it is for, in the index and the dashboard's links. */
  summary: string;
}

export const GUIDES: readonly Guide[] = Object.freeze([
  {
    name: 'quickstart',
    file: 'docs/guides/quickstart.md',
    title: 'Quickstart',
    summary: 'A first call, a first webhook and a first installed app in ten minutes.',
  },
  {
    name: 'api-keys',
    file: 'docs/guides/api-keys.md',
    title: 'API keys',
    summary: 'Secret and publishable keys, modes, scopes, rotation, browsers.',
  },
  {
    name: 'webhooks',
    file: 'docs/webhooks.md',
    title: 'Receiving webhooks',
    summary: 'Verifying signatures, answering, retries, and developing a receiver locally.',
  },
  {
    name: 'oauth-apps',
    file: 'docs/guides/oauth-apps.md',
    title: 'Building an OAuth app',
    summary: 'An app that installs on merchants’ stores, step by step.',
  },
  {
    name: 'platform-services',
    file: 'docs/guides/platform-services.md',
    title: 'Platform services',
    summary: 'Verifying svc credentials in the platform’s other services.',
  },
  {
    name: 'audit',
    file: 'docs/guides/audit.md',
    title: 'The audit log for auditors',
    summary: 'Exporting the log, verifying it offline, and keeping signed checkpoints.',
  },
  {
    name: 'operations',
    file: 'docs/operations.md',
    title: 'Operating svc',
    summary: 'Deployment, settings, backups, metrics, key rotation, a backed-up queue.',
  },
]);

/** What a signed-in merchant's snippets show instead of the placeholders. */
export interface Account {
  merchantId: string;
  storeId: string | undefined;
  publishableKey: string | undefined;
}

/** The address the guides are written with: `npm start`'s default. */
export const WRITTEN_BASE = 'http://127.0.0.1:4000';

/** The guide's page body with the signed-in merchant's ids and key for the placeholders of its snippets. */
export function withAccount(html: string, account: Account | undefined): string {
  if (!account) return html;
  const fills: [string, string | undefined][] = [
    ['mer_...', account.merchantId],
    ['store_...', account.storeId],
    ['svc_test_pk_...', account.publishableKey],
  ];
  let out = html;
  // Ids and keys are of [A-Za-z0-9_]: nothing to escape in HTML.
  for (const [placeholder, value] of fills) if (value) out = out.replaceAll(placeholder, value);
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/**
 * A link of a guide, as a page of the service: another guide is its page (anchor kept); an anchor or an
 * absolute URL stays; a file of the repository that the service does not serve (an example, the README) is
 * `undefined`: its text stays, unlinked, and names the file.
 */
export function pageLink(guide: Guide, href: string): string | undefined {
  if (/^([a-z][a-z0-9+.-]*:|#)/i.test(href)) return href;
  const [path = '', anchor] = href.split('#', 2);
  const target = posix.normalize(posix.join(posix.dirname(guide.file), path));
  const linked = GUIDES.find((g) => g.file === target);
  if (!linked) return undefined;
  return `/guides/${linked.name}${anchor ? `#${anchor}` : ''}`;
}

function renderer(guide: Guide): MarkdownIt {
  const md = markdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('svc_guide_links', (state) => {
    for (const token of state.tokens) {
      if (token.type === 'heading_open') {
        const inline = state.tokens[state.tokens.indexOf(token) + 1];
        if (inline) token.attrSet('id', slug(inline.content));
      }
      for (const child of token.children ?? []) {
        if (child.type !== 'link_open') continue;
        const href = String(child.attrGet('href') ?? '');
        const link = pageLink(guide, href);
        if (link !== undefined) child.attrSet('href', link);
        else {
          // Not served: the words stay, with the file they name.
          child.tag = 'span';
          child.attrs = [['title', `In the repository: ${posix.join(posix.dirname(guide.file), href)}`]];
          const close = (token.children ?? []).find(
            (c, i, all) => c.type === 'link_close' && i > all.indexOf(child),
          );
          if (close) close.tag = 'span';
        }
      }
    }
  });
  return md;
}

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'a',
    'span',
    'ul',
    'ol',
    'li',
    'code',
    'pre',
    'blockquote',
    'strong',
    'em',
    'del',
    'hr',
    'br',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href'], span: ['title'], code: ['class'], '*': ['id'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedClasses: { code: [/^language-[a-z0-9-]+$/] },
};

/** The guide's HTML body, at `base` (the running service's URL): rendered, linked to the pages, sanitised. */
export function renderGuide(guide: Guide, markdown: string, base: string): string {
  return sanitizeHtml(renderer(guide).render(markdown.replaceAll(WRITTEN_BASE, base)), ALLOWED);
}
