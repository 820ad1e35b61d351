import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { ListPage, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { SourceAddressesCard } from './source-addresses.tsx';
import { WebhooksTable } from './webhooks-table.tsx';

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
          <>
            <Link className="btn" to="/settings/developers/webhooks/attempts">
              All attempts
            </Link>
            {canWrite && (
              <Link className="btn btn-primary" to="/settings/developers/webhooks/new">
                Add endpoint
              </Link>
            )}
          </>
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
              <WebhooksTable items={page.items} />
            )
          }
        </AsyncView>
      </div>
      <SourceAddressesCard />
    </section>
  );
}
