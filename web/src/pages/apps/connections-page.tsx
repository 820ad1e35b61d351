import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { Connection, EventDefinition, ListPage } from '../../lib/types.ts';
import { SCOPE_TEXT } from './app-form.tsx';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { AppsSubnav } from './apps-subnav.tsx';

export function ConnectionsPage() {
  const { state, reload } = useAsync(
    () => api<ListPage<Connection>>('GET', '/developer/connections?limit=100'),
    [],
  );
  const [disconnecting, setDisconnecting] = useState<Connection | null>(null);
  // Event types in words ("Order created"): the catalog's names.
  const catalog = useAsync(() => api<ListPage<EventDefinition>>('GET', '/webhooks/events'), []).state;
  const names = new Map(catalog.status === 'ok' ? catalog.data.items.map((e) => [e.id, e.name]) : []);
  const canDisconnect = useCan('admin');

  return (
    <section aria-labelledby="section-title">
      <AppsSubnav current="connections" />
      <PageHeader
        title="Connected apps"
        description="Apps you have allowed to access your store, and the events each receives from it. Disconnecting one revokes its tokens at once."
      />
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="connected apps">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No connected apps.">
                Apps you approve on a consent screen appear here.
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table table-stack">
                  <thead>
                    <tr>
                      <th scope="col">App</th>
                      <th scope="col">Access</th>
                      <th scope="col">Receives</th>
                      <th scope="col">Connected</th>
                      <th scope="col">Last used</th>
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((c) => (
                      <tr key={c.id}>
                        <td data-label="App">
                          <div>{c.app.name}</div>
                          {c.app.developer_name && (
                            <div className="muted small">by {c.app.developer_name}</div>
                          )}
                          <code className="mono-small muted">{c.app.client_id}</code>
                        </td>
                        <td data-label="Access">
                          {c.scopes.map((s) => (
                            <div key={s} title={s}>
                              {SCOPE_TEXT[s]}
                            </div>
                          ))}
                        </td>
                        <td data-label="Receives">
                          {c.events.length === 0 ? (
                            <span className="muted">No events</span>
                          ) : (
                            <ul className="plain-list" aria-label={`Events ${c.app.name} receives`}>
                              {c.events.map((e) => (
                                <li key={e} title={e}>
                                  {names.get(e) ?? e}
                                </li>
                              ))}
                            </ul>
                          )}
                        </td>
                        <td data-label="Connected">
                          <TimeText value={c.created_at} />
                        </td>
                        <td data-label="Last used">
                          <TimeText value={c.last_used_at} />
                        </td>
                        <td className="cell-actions">
                          {canDisconnect && (
                            <button
                              type="button"
                              className="btn btn-small btn-danger-outline"
                              aria-label={`Disconnect ${c.app.name}`}
                              onClick={() => setDisconnecting(c)}
                            >
                              Disconnect
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </AsyncView>
      </div>
      {disconnecting && (
        <ConfirmDialog
          title={`Disconnect ${disconnecting.app.name}?`}
          confirmLabel="Disconnect"
          onClose={() => setDisconnecting(null)}
          onConfirm={async () => {
            await api('DELETE', `/developer/connections/${encodeURIComponent(disconnecting.id)}`);
            setDisconnecting(null);
            reload(true);
          }}
        >
          <p>The app loses access to your store at once, and its tokens stop working.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
