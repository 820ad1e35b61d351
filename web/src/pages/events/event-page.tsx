// One event: its payload, every delivery it produced, and "resend to an endpoint".
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { Delivery, EventItem, ListPage, ResendTarget, Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { useReloadSoon } from '../../lib/use-poll.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { DeliveryBadge } from '../../components/delivery-badge.tsx';

/** The payload as delivered: the event without the page's own fields. */
function payloadOf(e: EventItem) {
  const { created_at: _created, deliveries: _deliveries, ...payload } = e;
  return JSON.stringify(payload, null, 2);
}

export function EventPage({ id }: { id: string }) {
  const path = `/events/${encodeURIComponent(id)}`;
  const { state, reload } = useAsync(() => api<EventItem>('GET', path), [path]);
  const reloadSoon = useReloadSoon(reload);
  const webhooks = useAsync(() => api<ListPage<Webhook>>('GET', '/webhooks?limit=200'), []);
  // only the endpoints that subscribe to the event's type and may receive it (the route refuses the others)
  const targets = useAsync(() => api<ListPage<ResendTarget>>('GET', `${path}/resend-targets`), [path]);
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<Delivery | null>(null);
  const canWrite = useCan('developer');

  const resend = () => {
    setBusy(true);
    setError(null);
    setSent(null);
    api<Delivery>('POST', `${path}/resend`, { webhook_id: target }).then(
      (d) => {
        setBusy(false);
        setSent(d);
        reloadSoon();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  const endpoints = webhooks.state.status === 'ok' ? webhooks.state.data.items : [];
  const offered = targets.state.status === 'ok' ? targets.state.data.items : [];
  const urlOf = (webhookId: string) => endpoints.find((w) => w.id === webhookId)?.url ?? webhookId;

  return (
    <section aria-labelledby="section-title">
      <AsyncView state={state} onRetry={reload} label="the event">
        {(e) => (
          <>
            <PageHeader
              title={`Event ${e.type}`}
              description={<code>{e.id}</code>}
              back={{ to: '/settings/developers/events', label: 'Events' }}
            />
            <div className="grid-2">
              <section className="card card-padded" aria-labelledby="event-payload">
                <h3 className="card-title" id="event-payload">
                  Payload
                </h3>
                <pre className="code-block" tabIndex={0}>
                  {payloadOf(e)}
                </pre>
              </section>
              {canWrite && (
                <form
                  className="card card-padded stack"
                  aria-labelledby="resend-title"
                  onSubmit={(ev) => {
                    ev.preventDefault();
                    resend();
                  }}
                >
                  <h3 className="card-title" id="resend-title">
                    Resend
                  </h3>
                  <p className="muted small">
                    A new delivery of this event, sent now with the same <code>webhook-id</code>, to an
                    endpoint that subscribes to its type.
                  </p>
                  <label className="field">
                    <span className="label">Endpoint</span>
                    <select
                      className="input"
                      required
                      value={target}
                      onChange={(ev) => setTarget(ev.target.value)}
                    >
                      <option value="">Choose an endpoint</option>
                      {offered.map((w) => (
                        <option key={w.webhook_id} value={w.webhook_id}>
                          {w.url}
                        </option>
                      ))}
                    </select>
                  </label>
                  {targets.state.status === 'ok' && offered.length === 0 && (
                    <p className="muted small">
                      No endpoint can take this event: none that is enabled subscribes to{' '}
                      <code>{e.type}</code>.
                    </p>
                  )}
                  <div>
                    <button type="submit" className="btn btn-primary" disabled={busy || !target}>
                      {busy ? 'Sending…' : 'Resend event'}
                    </button>
                  </div>
                  <div aria-live="polite">
                    {error !== null && <ErrorBox error={error} />}
                    {sent && (
                      <p role="status">
                        Delivery{' '}
                        <Link to={`/settings/developers/webhooks/${sent.webhook_id}/deliveries/${sent.id}`}>
                          <code>{sent.id}</code>
                        </Link>{' '}
                        is on its way.
                      </p>
                    )}
                  </div>
                </form>
              )}
            </div>
            <section className="card" aria-labelledby="event-deliveries">
              <div className="card-header">
                <h3 className="card-title" id="event-deliveries">
                  Deliveries
                </h3>
              </div>
              {e.deliveries.length === 0 ? (
                <p className="card-padded muted">No endpoint was subscribed to this event.</p>
              ) : (
                <div className="table-wrap">
                  <table className="table table-stack">
                    <thead>
                      <tr>
                        <th scope="col">Endpoint</th>
                        <th scope="col">Status</th>
                        <th scope="col">Attempts</th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {e.deliveries.map((d) => (
                        <tr key={d.id}>
                          <td>
                            <Link
                              className="break"
                              to={`/settings/developers/webhooks/${d.webhook_id}/deliveries/${d.id}`}
                            >
                              {urlOf(d.webhook_id)}
                            </Link>
                          </td>
                          <td data-label="Status">
                            <DeliveryBadge delivery={d} />
                          </td>
                          <td data-label="Attempts">{d.attempt_count ?? '—'}</td>
                          <td data-label="Created">
                            <TimeText value={d.created_at ?? null} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </AsyncView>
    </section>
  );
}
