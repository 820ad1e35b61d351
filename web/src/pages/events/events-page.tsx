// Events (Stripe's Events page): what happened in this mode, newest first, and where each event went. The
// filters live in the URL, so a search can be shared.
import { useState, type FormEvent } from 'react';
import { api, query } from '../../lib/api.ts';
import { navigate, useSearch } from '../../lib/router.ts';
import type { EventDefinition, EventItem, ListPage } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Pager, nextPage } from '../../components/pager.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { DeliveryBadge } from '../../components/delivery-badge.tsx';

const PAGE = 25;
const HERE = '/settings/developers/events';

export function EventsPage() {
  const search = useSearch();
  const type = search.get('type') ?? '';
  const q = search.get('q') ?? '';
  const from = /^\d{4}-\d{2}-\d{2}$/.test(search.get('from') ?? '') ? search.get('from')! : '';
  const after = search.get('starting_after') ?? undefined;
  const catalog = useAsync(() => api<ListPage<EventDefinition>>('GET', '/webhooks/events'), []);
  const { state, reload } = useAsync(
    () =>
      api<ListPage<EventItem>>(
        'GET',
        `/events${query({ limit: PAGE, type, q, since: from ? localMidnight(from) : undefined, starting_after: after })}`,
      ),
    [type, q, from, after],
  );
  const [text, setText] = useState(q);
  const [fromText, setFromText] = useState(from);
  // Every change starts again from the newest page; the filters stay in the URL.
  const go = (params: { type?: string; q?: string; from?: string; starting_after?: string }) =>
    navigate(
      `${HERE}${query({ type: params.type || undefined, q: params.q || undefined, from: params.from || undefined, starting_after: params.starting_after })}`,
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({ type, q: text.trim(), from: fromText });
  };

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Events"
        guide="webhooks"
        description="Everything that happened in this mode, newest first, and the deliveries each event produced."
        actions={
          <button type="button" className="btn" onClick={() => reload()}>
            Refresh
          </button>
        }
      />
      <form className="card card-padded filters" onSubmit={submit} aria-label="Filter events">
        <label className="field">
          <span className="label">Type</span>
          <select className="input" value={type} onChange={(e) => go({ type: e.target.value, q, from })}>
            <option value="">All types</option>
            {catalog.state.status === 'ok' &&
              catalog.state.data.items.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.id}
                </option>
              ))}
          </select>
        </label>
        <label className="field">
          <span className="label">Event or object ID</span>
          <input
            className="input"
            type="search"
            value={text}
            placeholder="evt_…, order_…"
            spellCheck={false}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="label">Since</span>
          <input
            className="input"
            type="date"
            value={fromText}
            onChange={(e) => setFromText(e.target.value)}
          />
        </label>
        <div className="filters-actions">
          <button type="submit" className="btn btn-primary">
            Search
          </button>
        </div>
      </form>
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="events">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title={type || q || from ? 'No events match.' : 'No events yet.'}>
                {!type && !q && !from && 'Send a test event from a webhook, or run svc trigger.'}
              </EmptyState>
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table table-stack">
                    <thead>
                      <tr>
                        <th scope="col">Event</th>
                        <th scope="col">Object</th>
                        <th scope="col">Deliveries</th>
                        <th scope="col">Time</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.items.map((e) => (
                        <tr key={e.id}>
                          <td>
                            <Link to={`${HERE}/${e.id}`}>
                              <code>{e.type}</code>
                            </Link>
                            <div className="muted mono-small">{e.id}</div>
                          </td>
                          <td data-label="Object">
                            <code className="mono-small">{objectId(e.data) ?? '—'}</code>
                          </td>
                          <td data-label="Deliveries">
                            {e.deliveries.length === 0 ? (
                              <span className="muted">none</span>
                            ) : (
                              <ul className="tag-list plain">
                                {e.deliveries.map((d) => (
                                  <li key={d.id}>
                                    <Link
                                      to={`/settings/developers/webhooks/${d.webhook_id}/deliveries/${d.id}`}
                                    >
                                      <DeliveryBadge delivery={d} />
                                    </Link>
                                  </li>
                                ))}
                              </ul>
                            )}
                          </td>
                          <td data-label="Time">
                            <TimeText value={e.created_at} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  summary={
                    <>
                      {page.count} event{page.count === 1 ? '' : 's'}
                    </>
                  }
                  back={after ? { label: 'Newest', onClick: () => go({ type, q, from }) } : undefined}
                  forward={nextPage(page, 'Older', (cursor) => go({ type, q, from, starting_after: cursor }))}
                />
              </>
            )
          }
        </AsyncView>
      </div>
    </section>
  );
}

/** A date picked in the viewer's zone starts at that day's local midnight. */
function localMidnight(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d).toISOString();
}

export function objectId(data: unknown): string | undefined {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}
