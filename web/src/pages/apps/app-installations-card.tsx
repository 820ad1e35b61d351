// The stores that installed the app, and "Install on my test store": the consent flow for the signed-in
// merchant's own store, in test mode, so a developer sees the app's first events (app.installed, then
// whatever `svc trigger` records) without a second account.
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { approveInstall, openInstall, type PendingConsent } from '../../lib/install.ts';
import type { App, Installation, ListPage, Scope } from '../../lib/types.ts';
import { useCan } from '../../lib/role.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { SCOPE_TEXT } from './app-form.tsx';

const scopeText = (s: string) => SCOPE_TEXT[s as Scope] ?? s;

export function AppInstallationsCard({ app, onInstalled }: { app: App; onInstalled: () => void }) {
  // installing an app on the store is an owner's or an admin's (API.md 11.2)
  const canInstall = useCan('admin');
  const { state, reload } = useAsync(
    () =>
      api<ListPage<Installation>>(
        'GET',
        `/developer/apps/${encodeURIComponent(app.id)}/installations?limit=100`,
      ),
    [app.id],
  );
  const [consent, setConsent] = useState<PendingConsent | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  return (
    <section className="card" aria-labelledby="installations-title">
      <div className="card-header">
        <h3 className="card-title" id="installations-title">
          Installations
        </h3>
        {app.mode === 'test' && canInstall && (
          <button
            type="button"
            className="btn btn-small"
            disabled={busy}
            onClick={() => {
              setError(null);
              setDone(null);
              setBusy(true);
              openInstall(app)
                .then(setConsent, setError)
                .finally(() => setBusy(false));
            }}
          >
            Install on my test store
          </button>
        )}
      </div>
      {error !== null && <ErrorBox error={error} />}
      {done && (
        <p className="card-padded" role="status">
          Installed on your store. The app's redirect URI receives the code when its own install flow runs:{' '}
          <a href={done}>continue to the app</a>.
        </p>
      )}
      <AsyncView state={state} onRetry={reload} label="the app's installations">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState title="No store has installed this app yet." />
          ) : (
            <div className="table-wrap">
              <table className="table table-stack" aria-label="Installations">
                <thead>
                  <tr>
                    <th scope="col">Store</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Installed</th>
                    <th scope="col">Last used</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((i) => (
                    <tr key={i.id}>
                      <td data-label="Store">
                        <div>{i.store?.name ?? 'No store'}</div>
                        <code className="mono-small muted">{i.store?.id ?? i.merchant_id}</code>
                      </td>
                      <td data-label="Scopes">
                        {i.scopes.length === 0 ? (
                          <span className="muted">none</span>
                        ) : (
                          i.scopes.map((s) => <div key={s}>{scopeText(s)}</div>)
                        )}
                      </td>
                      <td data-label="Installed">
                        <TimeText value={i.installed_at} />
                      </td>
                      <td data-label="Last used">
                        <TimeText value={i.last_used_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </AsyncView>
      {consent && (
        <Dialog title={`Install ${consent.app.name} on your store?`} onClose={() => setConsent(null)}>
          <p>In test mode, {consent.app.name} will be able to:</p>
          <ul>
            {consent.scopes.map((s) => (
              <li key={s}>{scopeText(s)}</li>
            ))}
          </ul>
          <p className="muted small">
            Its webhooks then receive your test store's events; disconnect it any time under Connected apps.
          </p>
          <div className="form-actions">
            <button type="button" className="btn" onClick={() => setConsent(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy}
              onClick={() => {
                setBusy(true);
                approveInstall(consent.consent_id)
                  .then(
                    (answer) => {
                      setDone(answer.redirect_to);
                      setConsent(null);
                      reload(true);
                      onInstalled();
                    },
                    (err: unknown) => {
                      setConsent(null);
                      setError(err);
                    },
                  )
                  .finally(() => setBusy(false));
              }}
            >
              Approve
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
