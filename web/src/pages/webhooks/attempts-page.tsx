// Every delivery attempt of the account's endpoints (GET /webhook-attempts), newest first, with the list's
// filters: endpoint, event types (a family as `order.*`), outcome, status class and store.
import { useState } from 'react';
import { api, query } from '../../lib/api.ts';
import type { ListPage, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Pager, cursorButtons } from '../../components/pager.tsx';
import { TimeText } from '../../components/time-text.tsx';

interface AttemptItem {
  id: string;
  delivery_id: string;
  webhook_id: string;
  event_type: string;
  store_id: string | null;
  attempt: number;
  outcome: string;
  response_status: number | null;
  duration_ms: number;
  created_at: string;
}

interface Filters {
  webhook_id: string;
  event_type: string;
  outcome: string;
  status_class: string;
  store_id: string;
}

const NONE: Filters = { webhook_id: '', event_type: '', outcome: '', status_class: '', store_id: '' };
const OUTCOMES = ['succeeded', 'failed', 'timeout', 'network_error', 'refused'];
const CLASSES = ['2xx', '3xx', '4xx', '5xx'];
const PAGE = 25;

export function AttemptsPage() {
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const webhooks = useAsync(() => api<ListPage<Webhook>>('GET', '/webhooks?limit=200'), []);
  const { state, reload } = useAsync(
    () =>
      api<ListPage<AttemptItem>>(
        'GET',
        `/webhook-attempts${query({ ...filters, limit: PAGE, starting_after: after })}`,
      ),
    [filters, after],
  );
  const endpoints = webhooks.state.status === 'ok' ? webhooks.state.data.items : [];
  const urlOf = (id: string) => endpoints.find((w) => w.id === id)?.url ?? id;
  const field = (name: keyof Filters) => ({
    value: draft[name],
    onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value }),
  });

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Attempts"
        guide="webhooks"
        description="Every delivery attempt of your endpoints, newest first."
        back={{ to: '/settings/developers/webhooks', label: 'Webhooks' }}
      />
      <form
        className="card card-padded toolbar"
        aria-label="Filter attempts"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...draft, event_type: draft.event_type.trim(), store_id: draft.store_id.trim() });
          setCursors([]);
        }}
      >
        <label className="inline-field">
          <span className="label">Endpoint</span>
          <select className="input input-small" {...field('webhook_id')}>
            <option value="">All</option>
            {endpoints.map((w) => (
              <option key={w.id} value={w.id}>
                {w.url}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span className="label">Event types</span>
          <input className="input input-small" placeholder="order.*" {...field('event_type')} />
        </label>
        <label className="inline-field">
          <span className="label">Outcome</span>
          <select className="input input-small" {...field('outcome')}>
            <option value="">All</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {o.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span className="label">Status</span>
          <select className="input input-small" {...field('status_class')}>
            <option value="">All</option>
            {CLASSES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span className="label">Store</span>
          <input className="input input-small" placeholder="store_..." {...field('store_id')} />
        </label>
        <button type="submit" className="btn btn-small">
          Apply
        </button>
      </form>
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="attempts">
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No attempts match.">Attempts appear as deliveries are sent.</EmptyState>
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table table-stack">
                    <thead>
                      <tr>
                        <th scope="col">Event</th>
                        <th scope="col">Endpoint</th>
                        <th scope="col">Store</th>
                        <th scope="col">Outcome</th>
                        <th scope="col">Duration</th>
                        <th scope="col">Started</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.items.map((a) => (
                        <tr key={a.id}>
                          <td>
                            <Link
                              to={`/settings/developers/webhooks/${a.webhook_id}/deliveries/${a.delivery_id}`}
                            >
                              <code>{a.event_type}</code>
                            </Link>{' '}
                            <span className="muted small">#{a.attempt}</span>
                          </td>
                          <td data-label="Endpoint" className="break">
                            {urlOf(a.webhook_id)}
                          </td>
                          <td data-label="Store">{a.store_id ? <code>{a.store_id}</code> : '—'}</td>
                          <td data-label="Outcome">
                            {a.outcome.replace('_', ' ')}
                            {a.response_status !== null && ` (HTTP ${a.response_status})`}
                          </td>
                          <td data-label="Duration">{a.duration_ms} ms</td>
                          <td data-label="Started">
                            <TimeText value={a.created_at} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  summary={
                    <>
                      {page.count} attempt{page.count === 1 ? '' : 's'}
                    </>
                  }
                  {...cursorButtons(page, cursors, setCursors)}
                />
              </>
            )
          }
        </AsyncView>
      </div>
    </section>
  );
}
