import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { Delivery } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { usePollWhile, useReloadSoon } from '../../lib/use-poll.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { AttemptResult } from './attempt-result.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Link } from '../../components/link.tsx';
import { prettyJson } from '../../lib/format.ts';
import { DeliveryBadge } from '../../components/delivery-badge.tsx';

export function DeliveryPage({ webhookId, id }: { webhookId: string; id: string }) {
  const path = `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(id)}`;
  const { state, reload } = useAsync(() => api<Delivery>('GET', path), [path]);
  const reloadSoon = useReloadSoon(reload);
  const [retrying, setRetrying] = useState(false);
  const [retryError, setRetryError] = useState<unknown>(null);
  const [confirmResend, setConfirmResend] = useState(false);
  const canWrite = useCan('developer');
  // While it is pending, the delivery is read again.
  const pending = state.status === 'ok' && state.data.status === 'pending';
  usePollWhile(pending, state, reload);
  const [raw, setRaw] = useState(false);

  const retry = () => {
    setRetrying(true);
    setRetryError(null);
    api<Delivery>('POST', `${path}/retry`).then(
      () => {
        setRetrying(false);
        // The new attempt is made at once; read the delivery again to show it.
        reloadSoon();
      },
      (err: unknown) => {
        setRetrying(false);
        setRetryError(err);
      },
    );
  };

  return (
    <section aria-labelledby="section-title">
      <AsyncView state={state} onRetry={reload} label="the delivery">
        {(d) => (
          <>
            <PageHeader
              title={`Delivery of ${d.event_type}`}
              description={<code>{d.id}</code>}
              back={{ to: `/settings/developers/webhooks/${webhookId}`, label: 'Webhook endpoint' }}
              actions={
                <>
                  <button type="button" className="btn" onClick={() => reload()}>
                    Refresh
                  </button>
                  {canWrite && (
                    <button
                      type="button"
                      className="btn btn-primary"
                      // A delivery that already succeeded is sent again only after saying so.
                      onClick={d.status === 'succeeded' ? () => setConfirmResend(true) : retry}
                      disabled={retrying}
                    >
                      {retrying ? 'Retrying…' : d.status === 'succeeded' ? 'Send again' : 'Retry now'}
                    </button>
                  )}
                </>
              }
            />
            {retryError !== null && <ErrorBox error={retryError} />}
            <div className="card card-padded">
              <dl className="props">
                <dt>Status</dt>
                <dd>
                  <DeliveryBadge delivery={d} />
                  {d.test && <span className="badge badge-grey badge-inline">test event</span>}
                </dd>
                <dt>Event</dt>
                <dd>
                  <Link to={`/settings/developers/events/${d.event_id}`}>
                    <code>{d.event_id}</code>
                  </Link>
                </dd>
                <dt>Attempts</dt>
                <dd>{d.attempt_count}</dd>
                <dt>Next attempt</dt>
                <dd>
                  {d.status === 'pending' ? (
                    <TimeText value={d.next_attempt_at} />
                  ) : (
                    <span className="muted">none</span>
                  )}
                </dd>
                <dt>Created</dt>
                <dd>
                  <TimeText value={d.created_at} />
                </dd>
              </dl>
            </div>
            <section className="card card-padded" aria-labelledby="payload-title">
              <div className="card-header-inline">
                <h3 className="card-title" id="payload-title">
                  Request body
                </h3>
                <label className="choice small">
                  <input type="checkbox" checked={raw} onChange={(e) => setRaw(e.target.checked)} /> Exact
                  bytes
                </label>
              </div>
              {d.payload ? (
                <pre className="code-block" tabIndex={0} data-testid="payload">
                  {raw ? d.payload : prettyJson(d.payload)}
                </pre>
              ) : (
                <p className="muted">The event has been purged.</p>
              )}
            </section>
            <section className="card card-padded" aria-labelledby="attempts-title">
              <h3 className="card-title" id="attempts-title">
                Attempts
              </h3>
              {!d.attempts || d.attempts.length === 0 ? (
                <EmptyState title="No attempt yet." />
              ) : (
                <ol className="attempts">
                  {[...d.attempts].reverse().map((a) => (
                    <li key={a.number}>
                      <AttemptResult attempt={a} />
                    </li>
                  ))}
                </ol>
              )}
            </section>
            {confirmResend && (
              <ConfirmDialog
                title="Send a delivered event again"
                confirmLabel="Send again"
                danger={false}
                onClose={() => setConfirmResend(false)}
                onConfirm={async () => {
                  setConfirmResend(false);
                  retry();
                }}
              >
                <p>
                  This delivery already succeeded. Your endpoint will receive the same event again, with the
                  same <code>webhook-id</code>, so a receiver that deduplicates will ignore it.
                </p>
              </ConfirmDialog>
            )}
          </>
        )}
      </AsyncView>
    </section>
  );
}
