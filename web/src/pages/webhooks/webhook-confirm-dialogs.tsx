// The webhook detail page's confirmations: disable the endpoint, delete it.
import { api } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import type { Webhook } from '../../lib/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { webhookHome } from './webhook-header.tsx';

interface Props {
  /** The endpoint's API path, `/webhooks/{id}`. */
  path: string;
  onClose: () => void;
}

export function DisableWebhookDialog({
  path,
  onClose,
  onDisabled,
}: Props & { onDisabled: (wh: Webhook) => void }) {
  return (
    <ConfirmDialog
      title="Disable endpoint"
      confirmLabel="Disable"
      onClose={onClose}
      onConfirm={async () => {
        onDisabled(await api<Webhook>('POST', `${path}/disable`));
      }}
    >
      <p>
        Events that happen while the endpoint is disabled are not delivered to it, even after you enable it
        again.
      </p>
    </ConfirmDialog>
  );
}

export function DeleteWebhookDialog({ webhook, path, onClose }: Props & { webhook: Webhook }) {
  return (
    <ConfirmDialog
      title="Delete endpoint"
      confirmLabel="Delete endpoint"
      typed="delete"
      onClose={onClose}
      onConfirm={async () => {
        await api('DELETE', path);
        navigate(webhookHome(webhook).to, { replace: true });
      }}
    >
      <p>
        Deliveries still pending for <code className="break">{webhook.url}</code> are cancelled. This cannot
        be undone.
      </p>
    </ConfirmDialog>
  );
}
