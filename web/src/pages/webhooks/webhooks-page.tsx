import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { ListPage, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { EndpointStatus } from '../../components/endpoint-status.tsx';
import { HealthText } from '../../components/health-text.tsx';
import { LastResponse } from '../../components/last-response.tsx';

export function WebhooksPage() {
  const { state, reload } = useAsync(() => api<ListPage<Webhook>>('GET', '/webhooks?limit=100'), []);
  const canWrite = useCan('developer');
  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Webhooks"
        guide="webhooks"
        description="Endpoints that receive signed events as they happen, retried until they answer 2xx."
        actions={
          canWrite && (
            <Link className="btn btn-primary" to="/settings/developers/webhooks/new">
              Add endpoint
            </Link>
          )
        }
      />
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="webhooks">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No webhook endpoints yet.">
                Add one to be told about orders, carts and more.
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table table-stack">
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Status</th>
                      <th scope="col">Last 24 hours</th>
                      <th scope="col">Last response</th>
                      <th scope="col">Events</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((wh) => (
                      <tr key={wh.id}>
                        <td>
                          <Link to={`/settings/developers/webhooks/${wh.id}`} className="break">
                            {wh.url}
                          </Link>
                          {wh.description && <div className="muted small">{wh.description}</div>}
                        </td>
                        <td data-label="Status">
                          <EndpointStatus webhook={wh} />
                        </td>
                        <td data-label="Last 24 hours">
                          <HealthText health={wh.health} />
                        </td>
                        <td data-label="Last response">
                          <LastResponse health={wh.health} />
                        </td>
                        <td data-label="Events">
                          {wh.events.length} event{wh.events.length === 1 ? '' : 's'}
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
