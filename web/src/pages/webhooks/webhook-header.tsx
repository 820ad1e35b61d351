import type { Webhook } from '../../lib/types.ts';
import { PageHeader } from '../../components/page-header.tsx';

/** What the header's buttons open; Enable acts at once. */
export type WebhookAction = 'edit' | 'replay' | 'recover' | 'disable' | 'reveal' | 'rotate' | 'delete';

interface Props {
  webhook: Webhook;
  canWrite: boolean;
  onOpen: (action: WebhookAction) => void;
  onEnable: () => void;
}

/** Where the endpoint is listed: an app's endpoint under its app, any other under Webhooks. */
export function webhookHome(webhook: Webhook): { to: string; label: string } {
  return webhook.app_id
    ? { to: `/settings/developers/apps/${encodeURIComponent(webhook.app_id)}`, label: 'App' }
    : { to: '/settings/developers/webhooks', label: 'Webhooks' };
}

export function WebhookHeader({ webhook, canWrite, onOpen, onEnable }: Props) {
  return (
    <PageHeader
      title="Webhook endpoint"
      description={<span className="break">{webhook.url}</span>}
      back={webhookHome(webhook)}
      actions={
        canWrite && (
          <>
            <button type="button" className="btn" onClick={() => onOpen('edit')}>
              Edit
            </button>
            {webhook.status === 'enabled' && (
              <>
                <button type="button" className="btn" onClick={() => onOpen('replay')}>
                  Replay events
                </button>
                <button type="button" className="btn" onClick={() => onOpen('recover')}>
                  Recover failed
                </button>
              </>
            )}
            {webhook.status === 'enabled' ? (
              <button type="button" className="btn" onClick={() => onOpen('disable')}>
                Disable
              </button>
            ) : (
              <button type="button" className="btn" onClick={onEnable}>
                Enable
              </button>
            )}
            <button type="button" className="btn" onClick={() => onOpen('reveal')}>
              Reveal secret
            </button>
            <button type="button" className="btn" onClick={() => onOpen('rotate')}>
              Rotate secret
            </button>
            <button type="button" className="btn btn-danger-outline" onClick={() => onOpen('delete')}>
              Delete
            </button>
          </>
        )
      }
    />
  );
}
