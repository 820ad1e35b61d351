import { useState } from 'react';
import { api, query } from '../../lib/api.ts';
import type { Delivery, DeliveryStatus, Installation, ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { usePollWhile } from '../../lib/use-poll.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, cursorButtons } from '../../components/pager.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { DeliveryBadge } from '../../components/delivery-badge.tsx';
import { outcomeWords } from '../../lib/format.ts';

const PAGE = 20;
const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled'];

/** The names of the stores that installed the app (its first 100 installations), by store id. */
function useStoreNames(appId: string | null | undefined): ReadonlyMap<string, string> {
  const { state } = useAsync(
    () =>
      appId
        ? api<ListPage<Installation>>(
            'GET',
            `/developer/apps/${encodeURIComponent(appId)}/installations?limit=100`,
          )
        : Promise.resolve(null),
    [appId],
  );
  const names = new Map<string, string>();
  if (state.status === 'ok' && state.data)
    for (const i of state.data.items) if (i.store) names.set(i.store.id, i.store.name);
  return names;
}

/** A delivery's store as the Installations card names it: the name, and the id under it. */
function StoreCell({
  storeId,
  names,
}: {
  storeId: string | null | undefined;
  names: ReadonlyMap<string, string>;
}) {
  if (!storeId) return <>—</>;
  const name = names.get(storeId);
  return (
    <>
      {name && <div>{name}</div>}
      <code className={name ? 'mono-small muted' : undefined}>{storeId}</code>
    </>
  );
}

/**
 * Deliveries, newest first, filtered by status, paged by cursor (a stack of cursors for "Previous"). An app
 * webhook hears many stores: its list shows each delivery's store (named as its installation names it), and
 * filters by one.
 */
export function DeliveriesList({
  webhookId,
  appWebhook,
  appId,
}: {
  webhookId: string;
  appWebhook: boolean;
  /** The app of an app webhook, whose installations name the stores. */
  appId?: string | null;
}) {
  const storeNames = useStoreNames(appWebhook ? appId : null);
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [store, setStore] = useState('');
  const [storeDraft, setStoreDraft] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const { state, reload } = useAsync(
    () =>
      api<ListPage<Delivery>>(
        'GET',
        `/webhooks/${encodeURIComponent(webhookId)}/deliveries${query({ limit: PAGE, status, store_id: store, starting_after: after })}`,
      ),
    [webhookId, status, store, after],
  );

  // While anything is pending, the page is read again.
  const pending = state.status === 'ok' && state.data.items.some((d) => d.status === 'pending');
  usePollWhile(pending, state, reload);

  return (
    <section className="card" aria-labelledby="deliveries-title">
      <div className="card-header">
        <h3 className="card-title" id="deliveries-title">
          Deliveries
        </h3>
        <div className="toolbar">
          <label className="inline-field">
            <span className="label">Status</span>
            <select
              className="input input-small"
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as DeliveryStatus | '');
                setCursors([]);
              }}
            >
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          {appWebhook && (
            <form
              className="inline-field"
              onSubmit={(e) => {
                e.preventDefault();
                setStore(storeDraft.trim());
                setCursors([]);
              }}
            >
              <label className="inline-field">
                <span className="label">Store</span>
                <input
                  className="input input-small"
                  placeholder="store_..."
                  value={storeDraft}
                  spellCheck={false}
                  onChange={(e) => setStoreDraft(e.target.value)}
                />
              </label>
              <button type="submit" className="btn btn-small">
                Filter
              </button>
            </form>
          )}
          <button type="button" className="btn btn-small" onClick={() => reload()}>
            Refresh
          </button>
        </div>
      </div>
      <AsyncView state={state} onRetry={reload} label="deliveries">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState
              title={status || store ? `No ${status || 'matching'} deliveries.` : 'No deliveries yet.'}
            >
              {!status && !store && 'Send a test event to see one here.'}
            </EmptyState>
          ) : (
            <>
              <div className="table-wrap">
                <table className="table table-stack">
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      {appWebhook && <th scope="col">Store</th>}
                      <th scope="col">Status</th>
                      <th scope="col">Attempts</th>
                      <th scope="col">Last response</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((d) => (
                      <tr key={d.id}>
                        <td>
                          <Link to={`/settings/developers/webhooks/${webhookId}/deliveries/${d.id}`}>
                            <code>{d.event_type}</code>
                          </Link>
                          {d.test && <span className="badge badge-grey badge-inline">test</span>}
                        </td>
                        {appWebhook && (
                          <td data-label="Store">
                            <StoreCell storeId={d.store_id} names={storeNames} />
                          </td>
                        )}
                        <td data-label="Status">
                          <DeliveryBadge delivery={d} />
                          {d.status === 'pending' && d.attempt_count > 0 && d.next_attempt_at && (
                            <div className="muted small">
                              next <TimeText value={d.next_attempt_at} />
                            </div>
                          )}
                        </td>
                        <td data-label="Attempts">{d.attempt_count}</td>
                        <td data-label="Last response">
                          {d.attempt_count > 0 ? outcomeWords(d.last_response_status, d.last_error) : '—'}
                        </td>
                        <td data-label="Created">
                          <TimeText value={d.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                summary={
                  <>
                    {page.count} deliver{page.count === 1 ? 'y' : 'ies'}
                  </>
                }
                {...cursorButtons(page, cursors, setCursors)}
              />
            </>
          )
        }
      </AsyncView>
    </section>
  );
}
