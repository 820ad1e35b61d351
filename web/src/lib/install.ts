// "Install on my test store" (API.md section 11.1): the consent flow of the OAuth endpoints, run by the
// dashboard for the signed-in merchant's own store, as a dashboard that draws its own consent page does
// (API.md section 5: the authorize endpoint answers JSON to `Accept: application/json`). PKCE is required,
// so a challenge is sent; nothing here redeems the code: the app's own install flow does that.
import { ApiError } from './api.ts';
import type { App } from './types.ts';

const AUTHORIZE = '/api/public/v1/oauth/authorize';

export interface PendingConsent {
  consent_id: string;
  app: { name: string };
  scopes: string[];
  redirect_uri: string;
}

function randomBase64url(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as {
    data?: T;
    error?: { code?: string; message?: string; request_id?: string } | string;
    error_description?: string;
  };
  if (res.ok && body.data) return body.data;
  const err = typeof body.error === 'object' ? body.error : undefined;
  throw new ApiError(
    res.status,
    err?.code ?? (typeof body.error === 'string' ? body.error : 'http_error'),
    err?.message ?? body.error_description ?? `The service answered ${res.status}.`,
    err?.request_id ?? res.headers.get('x-request-id'),
  );
}

/** Opens a consent for the app on the signed-in merchant's store, asking for all it may have. */
export async function openInstall(app: App): Promise<PendingConsent> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0] ?? '',
    scope: app.allowed_scopes.join(' '),
    state: randomBase64url(16),
    code_challenge: randomBase64url(32), // 43 characters, as an S256 challenge is
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${AUTHORIZE}?${q}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  return json<PendingConsent>(res);
}

/** Approves it: the installation exists, and the app's webhooks hear app.installed. */
export async function approveInstall(consentId: string): Promise<{ redirect_to: string }> {
  const res = await fetch(`${AUTHORIZE}/consent`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ consent_id: consentId, approve: true }),
  });
  return json<{ redirect_to: string }>(res);
}
