// The app's webhooks on its page: the endpoints that hear every store that installed it, in the same table
// as the Webhooks tab (health, last response), each opening the same webhook page with its deliveries.
import { api } from '../../lib/api.ts';
import type { App, ListPage, Webhook } from '../../lib/types.ts';
import { useCan } from '../../lib/role.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { WebhooksTable } from '../webhooks/webhooks-table.tsx';

export function AppWebhooksCard({ app, version }: { app: App; version: number }) {
  const { state, reload } = useAsync(
    () => api<ListPage<Webhook>>('GET', `/webhooks?limit=100&app_id=${encodeURIComponent(app.id)}`),
    [app.id, version],
  );
  const canWrite = useCan('developer');
  return (
    <section className="card" aria-labelledby="app-webhooks-title">
      <div className="card-header">
        <h3 className="card-title" id="app-webhooks-title">
          Webhooks
        </h3>
        {canWrite && (
          <Link
            className="btn btn-small"
            to={`/settings/developers/webhooks/new?app=${encodeURIComponent(app.id)}`}
          >
            Add endpoint
          </Link>
        )}
      </div>
      <AsyncView state={state} onRetry={reload} label="the app's webhooks">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState title="No endpoints for this app yet.">
              Add one to hear the events of every store that installs it: orders, uninstalls, privacy
              requests.
            </EmptyState>
          ) : (
            <WebhooksTable items={page.items} label="The app's webhooks" />
          )
        }
      </AsyncView>
    </section>
  );
}
