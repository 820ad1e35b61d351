// What a developer needs to let merchants install the app: the install (authorize) link for one of its
// redirect URIs, the discovery URL its OAuth library reads, and how many stores installed it.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import type { App } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { guideUrl } from '../../lib/guides.ts';

export const GUIDE_URL = guideUrl('oauth-apps');

/** The authorize URL without state and PKCE: the app adds both per install (they are per request). */
export function installLink(origin: string, app: App, redirectUri: string): string {
  const url = new URL('/api/public/v1/oauth/authorize', origin);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', app.allowed_scopes.join(' '));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.href;
}

export function AppInstallCard({ app }: { app: App }) {
  const [redirectUri, setRedirectUri] = useState(app.redirect_uris[0] ?? '');
  const installs = useAsync(
    () => api<{ stores: number }>('GET', `/developer/apps/${encodeURIComponent(app.id)}/installs`),
    [app.id],
  ).state;
  const origin = window.location.origin;
  const link = installLink(origin, app, redirectUri);
  const discovery = `${origin}/.well-known/oauth-authorization-server`;
  return (
    <div className="card card-padded">
      <h3 className="card-title">Install</h3>
      <dl className="props">
        <dt>
          <label htmlFor="install-redirect">Redirect URI</label>
        </dt>
        <dd>
          <select id="install-redirect" value={redirectUri} onChange={(e) => setRedirectUri(e.target.value)}>
            {app.redirect_uris.map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </dd>
        <dt>Install link</dt>
        <dd>
          <div className="copy-row">
            <code data-testid="install-link">{link}</code>
            <CopyButton value={link} label="Copy install link" />
          </div>
          <p className="muted">
            Your app adds <code>state</code> and the PKCE <code>code_challenge</code> (S256) to this link for
            each install; the merchant then signs in, approves, and your redirect URI receives the code.
          </p>
        </dd>
        <dt>Discovery URL</dt>
        <dd className="copy-row">
          <code>{discovery}</code>
          <CopyButton value={discovery} label="Copy discovery URL" />
        </dd>
        <dt>Installed on</dt>
        <dd data-testid="install-count">
          {installs.status === 'ok'
            ? `${installs.data.stores} ${installs.data.stores === 1 ? 'store' : 'stores'}`
            : installs.status === 'error'
              ? 'unknown'
              : '…'}
        </dd>
        <dt>Guide</dt>
        <dd>
          <a href={GUIDE_URL}>Building an app that installs on a store</a>
        </dd>
      </dl>
    </div>
  );
}
