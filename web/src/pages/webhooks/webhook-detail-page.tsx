import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { useCan } from '../../lib/role.ts';
import type { Webhook } from '../../lib/types.ts';
import { useAsync } from '../../lib/use-async.ts';
import { AsyncView } from '../../components/async-view.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { RotateSecretDialog } from '../../components/rotate-secret-dialog.tsx';
import { DeliveriesList } from './deliveries-list.tsx';
import { ReplayDialog } from './replay-dialog.tsx';
import { ReplaysCard } from './replays-card.tsx';
import { TestEventPanel } from './test-event-panel.tsx';
import { DeleteWebhookDialog, DisableWebhookDialog } from './webhook-confirm-dialogs.tsx';
import { WebhookDetailsCard } from './webhook-details-card.tsx';
import { EditWebhookDialog, RecoverDialog, RevealSecretDialog } from './webhook-dialogs.tsx';
import { WebhookHeader, type WebhookAction } from './webhook-header.tsx';

export function WebhookDetailPage({ id }: { id: string }) {
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const { state, reload, setData } = useAsync(() => api<Webhook>('GET', path), [path]);
  const [open, setOpen] = useState<WebhookAction | null>(null);
  const [toggleError, setToggleError] = useState<unknown>(null);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const [replaysVersion, setReplaysVersion] = useState(0);
  const canWrite = useCan('developer');
  const close = () => setOpen(null);

  const enable = () => {
    setToggleError(null);
    api<Webhook>('POST', `${path}/enable`).then(setData, setToggleError);
  };

  return (
    <section aria-labelledby="section-title">
      <AsyncView state={state} onRetry={reload} label="the webhook">
        {(wh) => (
          <>
            <WebhookHeader webhook={wh} canWrite={canWrite} onOpen={setOpen} onEnable={enable} />
            {toggleError !== null && <ErrorBox error={toggleError} />}
            <div className="grid-2">
              <WebhookDetailsCard webhook={wh} />
              {canWrite && <TestEventPanel webhook={wh} onSent={() => setDeliveriesVersion((v) => v + 1)} />}
            </div>
            <ReplaysCard key={`replays-${replaysVersion}`} webhookId={wh.id} canWrite={canWrite} />
            <DeliveriesList
              key={deliveriesVersion}
              webhookId={wh.id}
              appWebhook={wh.app_id !== null}
              appId={wh.app_id}
            />
            {open === 'edit' && (
              <EditWebhookDialog
                webhook={wh}
                onClose={close}
                onSaved={(saved) => {
                  setData(saved);
                  close();
                }}
              />
            )}
            {open === 'replay' && (
              <ReplayDialog
                webhook={wh}
                onStarted={() => setReplaysVersion((v) => v + 1)}
                onClose={() => {
                  close();
                  setReplaysVersion((v) => v + 1);
                  setDeliveriesVersion((v) => v + 1);
                }}
              />
            )}
            {open === 'reveal' && <RevealSecretDialog webhookId={wh.id} onClose={close} />}
            {open === 'recover' && (
              <RecoverDialog
                webhook={wh}
                onClose={close}
                onDone={() => {
                  close();
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
                onClose={close}
              />
            )}
            {open === 'disable' && (
              <DisableWebhookDialog
                path={path}
                onClose={close}
                onDisabled={(saved) => {
                  setData(saved);
                  close();
                }}
              />
            )}
            {open === 'delete' && <DeleteWebhookDialog webhook={wh} path={path} onClose={close} />}
          </>
        )}
      </AsyncView>
    </section>
  );
}
