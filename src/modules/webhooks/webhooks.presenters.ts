// Webhook rows to API objects (API.md section 7): ISO times, no secret, no queue internals.
import { iso } from '../../lib/time.ts';
import type { ShownWebhook, WebhookView } from './webhooks.repository.ts';
import { FAILING_DAYS } from './disable-failing.repository.ts';

const DAY_MS = 86_400_000;

/**
 * The attempts per second allowed now (API.md section 11.4) and why: the adaptive pace where it is below the
 * rate limit, else the rate limit; null while unconstrained.
 */
function presentPace(w: Partial<WebhookView>) {
  const limit = w.rate_limit ?? null;
  const paced = w.pace ?? null;
  if (paced !== null && (limit === null || paced < limit))
    return { pace: Math.round(paced * 100) / 100, pace_reason: w.pace_reason ?? null };
  if (limit !== null) return { pace: limit, pace_reason: 'rate_limit' as const };
  return { pace: null, pace_reason: null };
}

/** The webhook's `health` block: the last day's real deliveries, its last attempt, its failure streak. */
export function presentHealth(w: ShownWebhook & Partial<WebhookView>) {
  return {
    deliveries_24h: w.deliveries ?? 0,
    filtered_24h: w.filtered ?? 0,
    success_rate_24h: w.attempted ? w.succeeded! / w.attempted : null,
    last_attempt_at: iso(w.last_attempt_at),
    last_status: w.last_response_status,
    last_error: w.last_error,
    failing_since: iso(w.failing_since),
    disables_at:
      w.status === 'enabled' && w.failing_since
        ? iso(new Date(w.failing_since.getTime() + FAILING_DAYS * DAY_MS))
        : null,
    ...presentPace(w),
  };
}

/** A webhook; one just created has no deliveries, so it is shown without counting them. */
export function presentWebhook(w: ShownWebhook & Partial<WebhookView>) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    app_id: w.app_id,
    status: w.status,
    kind: w.kind,
    mode: w.mode,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
    disabled_reason: w.disabled_reason,
    rate_limit: w.rate_limit ?? null,
    ordering: w.ordering,
    filter: w.filter,
    health: presentHealth(w),
  };
}
