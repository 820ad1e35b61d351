import type { Webhook } from '../lib/types.ts';
import { StatusBadge } from './status-badge.tsx';

/** Enabled or disabled, and beside it a red "Failing" while every attempt since `failing_since` failed. */
export function EndpointStatus({ webhook }: { webhook: Pick<Webhook, 'status' | 'health'> }) {
  return (
    <span className="badge-row">
      <StatusBadge status={webhook.status} />
      {webhook.status === 'enabled' && webhook.health.failing_since && <StatusBadge status="failing" />}
    </span>
  );
}
