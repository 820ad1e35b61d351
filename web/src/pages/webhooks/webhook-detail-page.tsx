import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import { navigate } from '../../lib/router.ts';
import type { Webhook } from '../../lib/types.ts';
import { paceWords } from '../../lib/format.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { RotateSecretDialog } from '../../components/rotate-secret-dialog.tsx';
import { TimeText } from '../../components/time-text.tsx';
import { Link } from '../../components/link.tsx';
import { DeliveriesList } from './deliveries-list.tsx';
import { TestEventPanel } from './test-event-panel.tsx';
import { EditWebhookDialog, RecoverDialog, RevealSecretDialog } from './webhook-dialogs.tsx';
import { HealthText } from '../../components/health-text.tsx';
import { EndpointStatus } from '../../components/endpoint-status.tsx';
import { LastResponse } from '../../components/last-response.tsx';

type Open = null | 'rotate' | 'delete' | 'disable' | 'edit' | 'reveal' | 'recover';

export function WebhookDetailPage({ id }: { id: string }) {
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const { state, reload, setData } = useAsync(() => api<Webhook>('GET', path), [path]);
  const [open, setOpen] = useState<Open>(null);
  const [toggleError, setToggleError] = useState<unknown>(null);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const canWrite = useCan('developer');

  const enable = () => {
    setToggleError(null);
    api<Webhook>('POST', `${path}/enable`).then(setData, setToggleError);
  };

  return (
    <section aria-labelledby="section-title">
      <AsyncView state={state} onRetry={reload} label="the webhook">
        {(wh) => (
          <>
            <PageHeader
              title="Webhook endpoint"
              description={<span className="break">{wh.url}</span>}
              back={
                wh.app_id
                  ? { to: `/settings/developers/apps/${encodeURIComponent(wh.app_id)}`, label: 'App' }
                  : { to: '/settings/developers/webhooks', label: 'Webhooks' }
              }
              actions={
                canWrite && (
                  <>
                    <button type="button" className="btn" onClick={() => setOpen('edit')}>
                      Edit
                    </button>
                    {wh.status === 'enabled' && (
                      <button type="button" className="btn" onClick={() => setOpen('recover')}>
                        Recover failed
                      </button>
                    )}
                    {wh.status === 'enabled' ? (
                      <button type="button" className="btn" onClick={() => setOpen('disable')}>
                        Disable
                      </button>
                    ) : (
                      <button type="button" className="btn" onClick={enable}>
                        Enable
                      </button>
                    )}
                    <button type="button" className="btn" onClick={() => setOpen('reveal')}>
                      Reveal secret
                    </button>
                    <button type="button" className="btn" onClick={() => setOpen('rotate')}>
                      Rotate secret
                    </button>
                    <button
                      type="button"
                      className="btn btn-danger-outline"
                      onClick={() => setOpen('delete')}
                    >
                      Delete
                    </button>
                  </>
                )
              }
            />
            {toggleError !== null && <ErrorBox error={toggleError} />}
            <div className="grid-2">
              <div className="card card-padded">
                <h3 className="card-title">Details</h3>
                <dl className="props">
                  <dt>Status</dt>
                  <dd>
                    <EndpointStatus webhook={wh} />
                    {wh.disabled_reason && <div className="muted small">{wh.disabled_reason}</div>}
                  </dd>
                  <dt>Last 24 hours</dt>
                  <dd>
                    <HealthText health={wh.health} />
                  </dd>
                  <dt>Last attempt</dt>
                  <dd>
                    <LastResponse health={wh.health} none="none yet" />
                  </dd>
                  <dt>Pace</dt>
                  <dd data-testid="pace">{paceWords(wh.health)}</dd>
                  <dt>Ordering</dt>
                  <dd>{wh.ordering === 'per_object' ? 'per object' : 'none'}</dd>
                  <dt>URL</dt>
                  <dd className="break">
                    <code>{wh.url}</code>
                  </dd>
                  {wh.app_id && (
                    <>
                      <dt>App</dt>
                      <dd>
                        <Link to={`/settings/developers/apps/${encodeURIComponent(wh.app_id)}`}>
                          <code>{wh.app_id}</code>
                        </Link>
                        <div className="muted small">
                          Receives these events from every store that installed the app.
                        </div>
                      </dd>
                    </>
                  )}
                  {wh.description && (
                    <>
                      <dt>Description</dt>
                      <dd>{wh.description}</dd>
                    </>
                  )}
                  <dt>ID</dt>
                  <dd>
                    <code>{wh.id}</code>
                  </dd>
                  <dt>Created</dt>
                  <dd>
                    <TimeText value={wh.created_at} />
                  </dd>
                  <dt>Events</dt>
                  <dd>
                    <ul className="tag-list" aria-label="Subscribed events">
                      {wh.events.map((e) => (
                        <li key={e}>
                          <code>{e}</code>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </dl>
              </div>
              {canWrite && <TestEventPanel webhook={wh} onSent={() => setDeliveriesVersion((v) => v + 1)} />}
            </div>
            <DeliveriesList key={deliveriesVersion} webhookId={wh.id} />
            {open === 'edit' && (
              <EditWebhookDialog
                webhook={wh}
                onClose={() => setOpen(null)}
                onSaved={(saved) => {
                  setData(saved);
                  setOpen(null);
                }}
              />
            )}
            {open === 'reveal' && <RevealSecretDialog webhookId={wh.id} onClose={() => setOpen(null)} />}
            {open === 'recover' && (
              <RecoverDialog
                webhook={wh}
                onClose={() => setOpen(null)}
                onDone={() => {
                  setOpen(null);
                  setDeliveriesVersion((v) => v + 1);
                  reload(true);
                }}
              />
            )}
            {open === 'rotate' && (
              <RotateSecretDialog
                path={path}
                field="secret"
                title="Rotate signing secret"
                intro="A new secret is made and shown once. While the old one still works, every delivery carries both signatures."
                defaultSeconds={86_400}
                shownTitle="New signing secret"
                shownLabel="Signing secret"
                onRotated={setData}
                onClose={() => setOpen(null)}
              />
            )}
            {open === 'disable' && (
              <ConfirmDialog
                title="Disable endpoint"
                confirmLabel="Disable"
                onClose={() => setOpen(null)}
                onConfirm={async () => {
                  setData(await api<Webhook>('POST', `${path}/disable`));
                  setOpen(null);
                }}
              >
                <p>
                  Events that happen while the endpoint is disabled are not delivered to it, even after you
                  enable it again.
                </p>
              </ConfirmDialog>
            )}
            {open === 'delete' && (
              <ConfirmDialog
                title="Delete endpoint"
                confirmLabel="Delete endpoint"
                typed="delete"
                onClose={() => setOpen(null)}
                onConfirm={async () => {
                  await api('DELETE', path);
                  navigate(
                    wh.app_id
                      ? `/settings/developers/apps/${encodeURIComponent(wh.app_id)}`
                      : '/settings/developers/webhooks',
                    { replace: true },
                  );
                }}
              >
                <p>
                  Deliveries still pending for <code className="break">{wh.url}</code> are cancelled. This
                  cannot be undone.
                </p>
              </ConfirmDialog>
            )}
          </>
        )}
      </AsyncView>
    </section>
  );
}
