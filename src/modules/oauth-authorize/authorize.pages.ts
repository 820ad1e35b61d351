// The server-rendered pages of the authorization flow: error, sign-in and consent. Every value is escaped;
// the pages load nothing from elsewhere and may not be framed (headers in oauth.routes.ts). The palette is
// the dashboard's: system-ui, #f6f7f9 background, white card, #4f46e5 primary, #111827 text, #6b7280 muted.
import { rights } from '../../lib/scopes.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#111827;line-height:1.5}
main{width:100%;max-width:440px;background:#fff;border-radius:12px;padding:32px;
box-shadow:0 1px 3px rgba(17,24,39,.08),0 8px 24px rgba(17,24,39,.06)}
h1{font-size:1.25rem;margin:0 0 8px}
p{margin:0 0 16px}
.muted{color:#6b7280;font-size:.9rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:2px 8px;border-radius:999px;
background:#eef2ff;color:#4f46e5;margin-left:6px;vertical-align:middle}
ul{padding:0;margin:0 0 16px;list-style:none}
li{padding:10px 12px;border:1px solid #e5e7eb;border-radius:8px;margin-bottom:8px}
li strong{display:block;font-size:.95rem}
label{display:block;font-size:.9rem;font-weight:600;margin:12px 0 4px}
input[type=email],input[type=password]{width:100%;padding:10px 12px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
input:focus,button:focus{outline:2px solid #4f46e5;outline-offset:2px}
.actions{display:flex;gap:12px;margin-top:24px}
button{flex:1;padding:10px 16px;border-radius:8px;font:inherit;font-weight:600;cursor:pointer;border:1px solid #4f46e5}
.primary{background:#4f46e5;color:#fff}
.secondary{background:#fff;color:#4f46e5}
.error{background:#fef2f2;color:#991b1b;border-radius:8px;padding:10px 12px;margin-bottom:16px}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p class="muted">If you followed a link from an app, tell its developer. You can close this page.</p>`,
  );
}

export interface SignInView {
  action: string;
  returnTo: string;
  appName: string;
  error?: string | undefined;
  email?: string | undefined;
}

export function signInPage(view: SignInView): string {
  return layout(
    'Sign in',
    `<h1>Sign in to continue</h1>
<p class="muted">${escapeHtml(view.appName)} wants to connect to your store. Sign in to review its request.</p>
${view.error ? `<div class="error" role="alert">${escapeHtml(view.error)}</div>` : ''}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="return_to" value="${escapeHtml(view.returnTo)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(view.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}

export interface ConsentView {
  action: string;
  consentId: string;
  csrfToken: string;
  appName: string;
  developer: string;
  testMode: boolean;
  scopes: { title: string; detail: string }[];
  stores: string[];
  merchantName: string;
  redirectHost: string;
}

export function consentPage(view: ConsentView): string {
  const stores = view.stores.length > 0 ? view.stores.join(', ') : view.merchantName;
  return layout(
    `Connect ${view.appName}`,
    `<h1>${escapeHtml(view.appName)}${view.testMode ? '<span class="badge">Test mode</span>' : ''}</h1>
<p class="muted">Developed by ${escapeHtml(view.developer)}</p>
<p>wants to connect to <strong>${escapeHtml(stores)}</strong> and will be able to:</p>
<ul>
${view.scopes.map((s) => `<li><strong>${escapeHtml(s.title)}</strong><span class="muted">${escapeHtml(s.detail)}</span></li>`).join('\n')}
</ul>
<p class="muted">Signed in as ${escapeHtml(view.merchantName)}. After your choice you go back to ${escapeHtml(view.redirectHost)}. You can disconnect the app at any time in Settings, Developers.</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="consent_id" value="${escapeHtml(view.consentId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<div class="actions">
<button class="secondary" type="submit" name="approve" value="false">Deny</button>
<button class="primary" type="submit" name="approve" value="true">Approve</button>
</div>
</form>`,
  );
}

/** Each scope in plain words. */
export function describeScopes(scopes: readonly string[]): { title: string; detail: string }[] {
  const read = { title: 'See your store data', detail: 'Read carts, catalog and other store data.' };
  const write = {
    title: 'Change your store data',
    detail: 'Create and update carts and other store data.',
  };
  const have = rights(scopes);
  return [...(have.has('read') ? [read] : []), ...(have.has('write') ? [write] : [])];
}
