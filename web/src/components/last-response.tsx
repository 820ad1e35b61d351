import { outcomeWords } from '../lib/format.ts';
import type { WebhookHealth } from '../lib/types.ts';
import { TimeText } from './time-text.tsx';

/** An endpoint's last attempt: what happened, in words, and when. */
export function LastResponse({ health, none = '—' }: { health: WebhookHealth; none?: string }) {
  if (!health.last_attempt_at) return <span className="muted">{none}</span>;
  const ok = health.last_status !== null && health.last_status >= 200 && health.last_status < 300;
  return (
    <>
      <span className={ok ? undefined : 'text-danger'} data-testid="last-response">
        {outcomeWords(health.last_status, health.last_error)}
      </span>{' '}
      · <TimeText value={health.last_attempt_at} />
    </>
  );
}
