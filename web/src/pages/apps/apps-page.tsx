import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { App, ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { AppsSubnav } from './apps-subnav.tsx';

export function AppsPage() {
  const { state, reload } = useAsync(() => api<ListPage<App>>('GET', '/developer/apps?limit=100'), []);
  const canWrite = useCan('developer');
  return (
    <section aria-labelledby="section-title">
      <AppsSubnav current="apps" />
      <PageHeader
        title="OAuth apps"
        guide="oauth-apps"
        description="Apps that other merchants install through OAuth consent. Each gets a client ID and secret."
        actions={
          canWrite && (
            <Link className="btn btn-primary" to="/settings/developers/apps/new">
              Create app
            </Link>
          )
        }
      />
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="apps">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No OAuth apps yet.">
                Create one to let merchants connect your integration with a consent screen.
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Client ID</th>
                      <th scope="col">Scopes</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((app) => (
                      <tr key={app.id}>
                        <td>
                          <Link to={`/settings/developers/apps/${app.id}`}>{app.name}</Link>
                        </td>
                        <td>
                          <code className="mono-small">{app.client_id}</code>
                        </td>
                        <td>{app.allowed_scopes.join(', ')}</td>
                        <td>
                          <TimeText value={app.created_at} />
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
    </section>
  );
}
