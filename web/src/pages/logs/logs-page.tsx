import { useState } from 'react';
import { api, query } from '../../lib/api.ts';
import type { ListPage, LogEntry } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { LogRow } from './log-row.tsx';
import { LogsFilters, NO_FILTERS, type LogFilters } from './logs-filters.tsx';

const PAGE = 50;

/** Dates are picked in the viewer's zone: "from" is that day's local midnight, "to" includes the whole day. */
function params(f: LogFilters, after?: string) {
  const day = (s: string, plus = 0) => {
    const [y, m, d] = s.split('-').map(Number);
    return new Date(y!, m! - 1, d! + plus).toISOString();
  };
  return query({
    limit: PAGE,
    starting_after: after,
    action: f.action || (f.family ? `${f.family}.*` : undefined),
    entity_id: f.entityId.trim() || undefined,
    since: f.since ? day(f.since) : undefined,
    until: f.until ? day(f.until, 1) : undefined,
  });
}

export function LogsPage() {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  const [more, setMore] = useState<{
    items: LogEntry[];
    cursor: string | null;
    busy: boolean;
    error: unknown;
  }>({
    items: [],
    cursor: null,
    busy: false,
    error: null,
  });
  const { state, reload } = useAsync(async () => {
    const page = await api<ListPage<LogEntry>>('GET', `/developer/logs${params(filters)}`);
    setMore({ items: [], cursor: page.next_cursor, busy: false, error: null });
    return page;
  }, [filters]);

  const loadMore = () => {
    if (!more.cursor) return;
    setMore({ ...more, busy: true, error: null });
    api<ListPage<LogEntry>>('GET', `/developer/logs${params(filters, more.cursor)}`).then(
      (page) =>
        setMore({
          items: [...more.items, ...page.items],
          cursor: page.next_cursor,
          busy: false,
          error: null,
        }),
      (error: unknown) => setMore({ ...more, busy: false, error }),
    );
  };

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Logs"
        description="Every change to apps, keys, webhooks and OAuth connections, with who made it. Read-only."
        actions={
          <button type="button" className="btn" onClick={() => reload()}>
            Refresh
          </button>
        }
      />
      <div className="card card-padded">
        <LogsFilters value={filters} onApply={setFilters} />
      </div>
      <div className="card">
        <AsyncView state={state} onRetry={reload} label="logs">
          {(page) => {
            const items = [...page.items, ...more.items];
            return items.length === 0 ? (
              <EmptyState title="No log entries match." />
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table table-logs">
                    <thead>
                      <tr>
                        <th scope="col">
                          <span className="sr-only">Details</span>
                        </th>
                        <th scope="col">Time</th>
                        <th scope="col">Action</th>
                        <th scope="col">Entity</th>
                        <th scope="col">Actor</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.map((entry) => (
                        <LogRow key={entry.id} entry={entry} />
                      ))}
                    </tbody>
                  </table>
                </div>
                <div className="pager">
                  <span className="muted small">
                    {items.length} of {page.count}
                  </span>
                  {more.cursor && (
                    <button type="button" className="btn btn-small" onClick={loadMore} disabled={more.busy}>
                      {more.busy ? 'Loading…' : 'Load more'}
                    </button>
                  )}
                </div>
                {more.error !== null && <ErrorBox error={more.error} />}
              </>
            );
          }}
        </AsyncView>
      </div>
    </section>
  );
}
