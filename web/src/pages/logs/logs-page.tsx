import { useState } from 'react';
import { api, download, query, saveFile } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import { getMode } from '../../lib/mode.ts';
import { navigate, useSearch } from '../../lib/router.ts';
import type { App, ChainState, Connection, ListPage, LogEntry, Me } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Pager, nextPage } from '../../components/pager.tsx';
import { ChainStateLine } from './chain-state.tsx';
import { LogRow, type ActorNames } from './log-row.tsx';
import { LogsFilters, type LogFilters } from './logs-filters.tsx';

const HERE = '/settings/developers/logs';

// A page of 50 entries: the list pages (Older, Newest) instead of growing without end.
const PAGE = 50;

/** The filters live in the URL, so a filtered view can be bookmarked and shared. */
function fromUrl(search: URLSearchParams): LogFilters {
  const date = (v: string | null) => (v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');
  return {
    family: search.get('family') ?? '',
    action: search.get('action') ?? '',
    entityId: search.get('entity_id') ?? '',
    since: date(search.get('from')),
    until: date(search.get('to')),
  };
}

function toUrl(f: LogFilters, startingAfter?: string): string {
  return query({
    family: f.family,
    action: f.action,
    entity_id: f.entityId.trim(),
    from: f.since,
    to: f.until,
    starting_after: startingAfter,
  });
}

/** Dates are picked in the viewer's zone: "from" is that day's local midnight, "to" includes the whole day. */
function apiFilters(f: LogFilters) {
  const day = (s: string, plus = 0) => {
    const [y, m, d] = s.split('-').map(Number);
    return new Date(y!, m! - 1, d! + plus).toISOString();
  };
  return {
    action: f.action || (f.family ? `${f.family}.*` : undefined),
    entity_id: f.entityId.trim() || undefined,
    since: f.since ? day(f.since) : undefined,
    until: f.until ? day(f.until, 1) : undefined,
  };
}

const params = (f: LogFilters, after?: string) =>
  query({ limit: PAGE, starting_after: after, ...apiFilters(f) });

/** Who acted, in words: the signed-in user's email, app names (own apps and installed ones). */
function useActorNames(me: Me): ActorNames {
  const { state } = useAsync(async () => {
    const [apps, connections] = await Promise.all([
      api<ListPage<App>>('GET', '/developer/apps?limit=200').catch(() => null),
      api<ListPage<Connection>>('GET', '/developer/connections?limit=200').catch(() => null),
    ]);
    const names = new Map<string, string>();
    for (const a of apps?.items ?? []) names.set(a.id, a.name);
    for (const c of connections?.items ?? []) names.set(c.app.id, c.app.name);
    return names;
  }, []);
  return { users: new Map([[me.user.id, me.user.email]]), apps: state.data ?? new Map<string, string>() };
}

export function LogsPage({ me }: { me: Me }) {
  const search = useSearch();
  const key = search.toString();
  const filters = fromUrl(search);
  const after = search.get('starting_after') ?? undefined;
  // A change of filters starts again from the newest entry; the page's cursor is in the URL too.
  const setFilters = (f: LogFilters, startingAfter?: string) => navigate(`${HERE}${toUrl(f, startingAfter)}`);
  const actors = useActorNames(me);
  const [exportError, setExportError] = useState<unknown>(null);
  const canExport = useCan('developer');
  // The checkpoint is signed before the export starts, so the export reaches it (`svc audit verify`); it is
  // saved after the export, so that the export is the first file the browser receives.
  const exportAs = (format: 'csv' | 'jsonl') => {
    setExportError(null);
    const name = `svc-logs-${getMode()}-${new Date().toISOString().slice(0, 10)}`;
    api<unknown>('GET', '/developer/logs/checkpoint')
      .then(async (checkpoint) => {
        await download(
          `/developer/logs/export${query({ ...apiFilters(filters), format })}`,
          `${name}.${format}`,
        );
        saveFile(
          new Blob([`${JSON.stringify(checkpoint, null, 2)}\n`], { type: 'application/json' }),
          `${name}.checkpoint.json`,
        );
      })
      .catch(setExportError);
  };
  const chain = useAsync(() => api<ChainState>('GET', '/developer/logs/chain'), []);
  const { state, reload } = useAsync(
    () => api<ListPage<LogEntry>>('GET', `/developer/logs${params(filters, after)}`),
    [key],
  );

  return (
    <section aria-labelledby="section-title">
      <PageHeader
        title="Logs"
        guide="audit"
        description={
          <>
            Every change made to this merchant, with who made it: API keys, OAuth apps and connections,
            webhooks and listeners, members (invitations, roles, removals, second factors, failed sign-ins),
            the merchant&rsquo;s settings and exports of this log. Read-only, and provably so:{' '}
            <a href="/guides/audit">verify an export</a>.
          </>
        }
        actions={
          <>
            {canExport && (
              <>
                <button type="button" className="btn" onClick={() => exportAs('csv')}>
                  Export CSV
                </button>
                <button type="button" className="btn" onClick={() => exportAs('jsonl')}>
                  Export JSON Lines
                </button>
              </>
            )}
            <button
              type="button"
              className="btn"
              onClick={() => {
                reload();
                chain.reload();
              }}
            >
              Refresh
            </button>
          </>
        }
      />
      {exportError !== null && <ErrorBox error={exportError} />}
      <div className="card card-padded">
        <LogsFilters key={key} value={filters} onApply={setFilters} />
      </div>
      <div className="card">
        <ChainStateLine state={chain.state} onRetry={() => chain.reload()} />
        <AsyncView state={state} onRetry={reload} label="logs">
          {(page) => {
            const items = page.items;
            return items.length === 0 ? (
              <EmptyState title="No log entries match." />
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table table-logs table-stack">
                    <thead>
                      <tr>
                        <th scope="col">
                          <span className="sr-only">Details</span>
                        </th>
                        <th scope="col">
                          <abbr title="Sequence in the audit chain">#</abbr>
                        </th>
                        <th scope="col">Time</th>
                        <th scope="col">Action</th>
                        <th scope="col">Entity</th>
                        <th scope="col">Actor</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.map((entry) => (
                        <LogRow key={entry.id} entry={entry} actors={actors} />
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  summary={
                    <>
                      {page.count} entr{page.count === 1 ? 'y' : 'ies'}
                    </>
                  }
                  back={after ? { label: 'Newest', onClick: () => setFilters(filters) } : undefined}
                  forward={nextPage(page, 'Older', (cursor) => setFilters(filters, cursor))}
                />
              </>
            );
          }}
        </AsyncView>
      </div>
    </section>
  );
}
