// One request: what was called, by which credential, how it was answered (the error body of an error), and
// what it caused: the audit entries it wrote and the webhook deliveries of the events recorded during it.
// The names of the fields its body sent are shown, never their values (the log does not hold them). A long
// path wraps and the error body is shown whole, so the page fits a phone's width.
import type { ReactNode } from 'react';
import { api } from '../../lib/api.ts';
import type { RequestDetail } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { Link } from '../../components/link.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { HERE, credentialText, statusTone } from './request-text.ts';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children ?? <span className="muted">—</span>}</dd>
    </>
  );
}

function Caused({ r }: { r: RequestDetail }) {
  return (
    <div className="grid-2">
      <section className="card" aria-labelledby="request-audit">
        <div className="card-header">
          <h3 className="card-title" id="request-audit">
            Audit entries
          </h3>
        </div>
        {r.audit_entries.length === 0 ? (
          <p className="card-padded muted">This request changed nothing the audit log records.</p>
        ) : (
          <ul className="card-padded plain-list stack">
            {r.audit_entries.map((a) => (
              <li key={a.id}>
                <Link to={`/settings/developers/logs?entity_id=${encodeURIComponent(a.entity_id)}`}>
                  <code>{a.action}</code>
                </Link>{' '}
                <span className="muted small">
                  {a.entity_type} {a.entity_id}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="request-deliveries">
        <div className="card-header">
          <h3 className="card-title" id="request-deliveries">
            Webhook deliveries
          </h3>
        </div>
        {r.deliveries.length === 0 ? (
          <p className="card-padded muted">No event recorded with this request was delivered.</p>
        ) : (
          <ul className="card-padded plain-list stack">
            {r.deliveries.map((d) => (
              <li key={d.id}>
                <Link to={`/settings/developers/webhooks/${d.webhook_id}/deliveries/${d.id}`}>
                  <code>{d.event_type}</code> to <code>{d.webhook_id}</code>
                </Link>{' '}
                <StatusBadge status={d.status} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

export function RequestPage({ id }: { id: string }) {
  const path = `/developer/requests/${encodeURIComponent(id)}`;
  const { state, reload } = useAsync(() => api<RequestDetail>('GET', path), [path]);
  return (
    <section aria-labelledby="section-title">
      {state.status !== 'ok' && (
        <PageHeader title="Request" description={<code>{id}</code>} back={{ to: HERE, label: 'Requests' }} />
      )}
      {state.status === 'error' && (
        <p className="muted">
          Requests records calls to the public API (<code>/api/public/v1</code>) made in this mode, for 7
          days; a request id of a dashboard call, or of the other mode, is not among them.
        </p>
      )}
      <AsyncView state={state} onRetry={reload} label="the request">
        {(r) => (
          <>
            <PageHeader
              title={`${r.method} ${r.path}`}
              description={<code>{r.id}</code>}
              back={{ to: HERE, label: 'Requests' }}
            />
            <div className="card card-padded">
              <dl className="props">
                <Field label="Status">
                  <span className={`badge ${statusTone(r.status)}`}>{r.status}</span>
                  {r.error_code && <code> {r.error_code}</code>}
                </Field>
                <Field label="Time">
                  <TimeText value={r.created_at} />
                </Field>
                <Field label="Duration">{r.duration_ms} ms</Field>
                <Field label="Route">{r.route && <code>{r.route}</code>}</Field>
                <Field label="Credential">{credentialText(r.credential)}</Field>
                <Field label="Client address">{r.ip}</Field>
                <Field label="User agent">{r.user_agent}</Field>
                <Field label="Body fields">
                  {r.body_fields &&
                    (r.body_fields.length === 0 ? (
                      <span className="muted">An empty body</span>
                    ) : (
                      <ul className="plain-list field-names" aria-label="Body fields">
                        {r.body_fields.map((name) => (
                          <li key={name}>
                            <code>{name}</code>
                          </li>
                        ))}
                      </ul>
                    ))}
                </Field>
                <Field label="Idempotency key">
                  {r.idempotency_key && (
                    <>
                      <code>{r.idempotency_key}</code>
                      {r.idempotent_replayed ? ' (replayed)' : ''}
                    </>
                  )}
                </Field>
              </dl>
            </div>
            {r.error && (
              <section className="card card-padded" aria-labelledby="request-error">
                <h3 className="card-title" id="request-error">
                  Error body
                </h3>
                <pre className="code-block code-block-whole" tabIndex={0} aria-label="Error body">
                  {JSON.stringify(r.error, null, 2)}
                </pre>
              </section>
            )}
            <Caused r={r} />
          </>
        )}
      </AsyncView>
    </section>
  );
}
