// Rows to API objects (API.md section 7): ISO times, no secret, no queue internals.
import { iso } from '../../lib/time.ts';
import type { AttemptRow, DeliveryRow } from './deliveries.repository.ts';
import type { WebhookRow } from './webhooks.repository.ts';

export function presentWebhook(w: WebhookRow) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    status: w.status,
    mode: w.mode,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
    disabled_reason: w.disabled_reason,
  };
}

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    last_attempt_at: iso(d.last_attempt_at),
    last_response_status: d.last_response_status,
    last_error: d.last_error,
    test: d.test,
    created_at: iso(d.created_at),
  };
}

export function presentAttempt(a: AttemptRow) {
  return {
    number: a.number,
    started_at: iso(a.started_at),
    duration_ms: a.duration_ms,
    response_status: a.response_status,
    response_body: a.response_body,
    error: a.error,
  };
}
