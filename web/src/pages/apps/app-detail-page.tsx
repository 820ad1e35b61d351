import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import { navigate } from '../../lib/router.ts';
import type { App } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { RotateSecretDialog } from '../../components/rotate-secret-dialog.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { AppClientAuthCard } from './app-client-auth-card.tsx';
import { AppForm, type AppFields } from './app-form.tsx';
import { AppInstallCard } from './app-install-card.tsx';
import { AppInstallationsCard } from './app-installations-card.tsx';
import { AppWebhooksCard } from './app-webhooks-card.tsx';

type Open = null | 'edit' | 'rotate' | 'delete';

export function AppDetailPage({ id }: { id: string }) {
  const { state, reload, setData } = useAsync(
    () => api<App>('GET', `/developer/apps/${encodeURIComponent(id)}`),
    [id],
  );
  const [open, setOpen] = useState<Open>(null);
  // An install made here shows at once in the webhooks' health and deliveries.
  const [installs, setInstalls] = useState(0);
  const canWrite = useCan('developer');
  const path = `/developer/apps/${encodeURIComponent(id)}`;

  return (
    <section aria-labelledby="section-title">
      <AsyncView state={state} onRetry={reload} label="the app">
        {(app) => (
          <>
            <PageHeader
              title={app.name}
              description={app.description || undefined}
              back={{ to: '/settings/developers/apps', label: 'OAuth apps' }}
              actions={
                canWrite && (
                  <>
                    <button type="button" className="btn" onClick={() => setOpen('edit')}>
                      Edit
                    </button>
                    <button type="button" className="btn" onClick={() => setOpen('rotate')}>
                      Rotate secret
                    </button>
                    <button
                      type="button"
                      className="btn btn-danger-outline"
                      onClick={() => setOpen('delete')}
                    >
                      Delete
                    </button>
                  </>
                )
              }
            />
            <div className="card card-padded">
              <dl className="props">
                <dt>Client ID</dt>
                <dd className="copy-row">
                  <code>{app.client_id}</code>
                  <CopyButton value={app.client_id} label="Copy client ID" />
                </dd>
                <dt>Client secret</dt>
                <dd>
                  <code>{`${app.mode === 'live' ? 'svc_live_cs_' : 'svc_test_cs_'}••••${app.client_secret_last4}`}</code>
                </dd>
                <dt>Redirect URIs</dt>
                <dd>
                  <ul className="plain-list">
                    {app.redirect_uris.map((u) => (
                      <li key={u}>
                        <code>{u}</code>
                      </li>
                    ))}
                  </ul>
                </dd>
                <dt>Allowed scopes</dt>
                <dd>{app.allowed_scopes.join(', ')}</dd>
                <dt>Mode</dt>
                <dd>{app.mode}</dd>
                <dt>Created</dt>
                <dd>
                  <TimeText value={app.created_at} />
                </dd>
                <dt>Updated</dt>
                <dd>
                  <TimeText value={app.updated_at} />
                </dd>
              </dl>
            </div>
            <AppInstallCard app={app} />
            <AppClientAuthCard app={app} onChanged={setData} />
            <AppInstallationsCard app={app} onInstalled={() => setInstalls((n) => n + 1)} />
            <AppWebhooksCard app={app} version={installs} />
            {open === 'edit' && (
              <Dialog title="Edit app" onClose={() => setOpen(null)} wide>
                <AppForm
                  initial={{
                    name: app.name,
                    description: app.description ?? '',
                    redirect_uris: app.redirect_uris,
                    allowed_scopes: app.allowed_scopes,
                  }}
                  submitLabel="Save changes"
                  onCancel={() => setOpen(null)}
                  onSubmit={async (f: AppFields) => {
                    setData(
                      await api<App>('PATCH', path, {
                        name: f.name,
                        description: f.description,
                        redirect_uris: f.redirect_uris,
                        allowed_scopes: f.allowed_scopes,
                      }),
                    );
                    setOpen(null);
                  }}
                />
              </Dialog>
            )}
            {open === 'rotate' && (
              <RotateSecretDialog
                path={path}
                field="client_secret"
                title="Rotate client secret"
                intro="A new client secret is made and shown once. Installs keep working: grants and tokens survive the rotation, and your app refreshes with the new secret. Update its configuration before the old secret stops working."
                defaultSeconds={0}
                shownTitle="New client secret"
                shownLabel="Client secret"
                onRotated={setData}
                onClose={() => setOpen(null)}
              />
            )}
            {open === 'delete' && (
              <ConfirmDialog
                title="Delete app"
                confirmLabel="Delete app"
                typed={app.name}
                onClose={() => setOpen(null)}
                onConfirm={async () => {
                  await api('DELETE', path);
                  navigate('/settings/developers/apps', { replace: true });
                }}
              >
                <p>
                  Every merchant connection, authorization code and token of <strong>{app.name}</strong> stops
                  working at once. This cannot be undone.
                </p>
              </ConfirmDialog>
            )}
          </>
        )}
      </AsyncView>
    </section>
  );
}
