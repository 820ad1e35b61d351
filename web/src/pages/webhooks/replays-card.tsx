// The endpoint's replays (GET /webhooks/{id}/replays), newest first: what each asked for and how far it got,
// read again while one runs, and Cancel on a running one for those who may change the endpoint.
import { useState } from 'react';
import { api, query } from '../../lib/api.ts';
import type { ListPage, Replay } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { usePollWhile } from '../../lib/use-poll.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { Pager, cursorButtons } from '../../components/pager.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { ReplayProgress } from './replay-dialog.tsx';

const PAGE = 10;

function asked(r: Replay): string {
  const which = r.filter.status === 'all' ? 'every event' : 'failed';
  const types = r.filter.event_types ? r.filter.event_types.join(', ') : 'every type';
  return `${which}; ${types}${r.filter.store_id ? `; store ${r.filter.store_id}` : ''}`;
}

export function ReplaysCard({ webhookId, canWrite }: { webhookId: string; canWrite: boolean }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const after = cursors[cursors.length - 1];
  const path = `/webhooks/${encodeURIComponent(webhookId)}/replays`;
  const { state, reload } = useAsync(
    () => api<ListPage<Replay>>('GET', `${path}${query({ limit: PAGE, starting_after: after })}`),
    [path, after],
  );
  const running = state.status === 'ok' && state.data.items.some((r) => r.status === 'running');
  usePollWhile(running, state, reload);

  // A page of nothing is not shown: most endpoints are never replayed.
  if (state.status === 'ok' && state.data.items.length === 0 && cursors.length === 0) return null;
  return (
    <section className="card" aria-labelledby="replays-title">
      <div className="card-header">
        <h3 className="card-title" id="replays-title">
          Replays
        </h3>
        <button type="button" className="btn btn-small" onClick={() => reload()}>
          Refresh
        </button>
      </div>
      {error !== null && <ErrorBox error={error} />}
      <AsyncView state={state} onRetry={reload} label="replays">
        {(page) => (
          <>
            <div className="table-wrap">
              <table className="table table-stack">
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Window</th>
                    <th scope="col">Asked for</th>
                    <th scope="col">Status</th>
                    <th scope="col">Progress</th>
                    {canWrite && (
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((r) => (
                    <tr key={r.id} data-replay={r.id}>
                      <td>
                        <TimeText value={r.created_at} />
                      </td>
                      <td data-label="Window">
                        <TimeText value={r.filter.since} /> – <TimeText value={r.filter.until} />
                      </td>
                      <td data-label="Asked for">{asked(r)}</td>
                      <td data-label="Status">
                        <StatusBadge status={r.status} />
                      </td>
                      <td data-label="Progress">
                        <ReplayProgress replay={r} label={`Progress of the replay started ${r.created_at}`} />
                      </td>
                      {canWrite && (
                        <td className="cell-actions">
                          {r.status === 'running' && (
                            <button
                              type="button"
                              className="btn btn-small"
                              onClick={() => {
                                setError(null);
                                api<Replay>('DELETE', `${path}/${encodeURIComponent(r.id)}`).then(
                                  () => reload(true),
                                  setError,
                                );
                              }}
                            >
                              Cancel
                            </button>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              summary={
                <>
                  {page.count} replay{page.count === 1 ? '' : 's'}
                </>
              }
              {...cursorButtons(page, cursors, setCursors)}
            />
          </>
        )}
      </AsyncView>
    </section>
  );
}
