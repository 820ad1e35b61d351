// Delivery rows to API objects (API.md section 7): ISO times, no queue internals.
import { iso } from '../../lib/time.ts';
import type { AttemptRow, DeliveryRow } from '../delivery/index.ts';

/** `app_id`: the webhook's (null for the merchant's own), which the row does not hold. */
export function presentDelivery(d: DeliveryRow & { app_id: string | null }) {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    store_id: d.store_id,
    app_id: d.app_id,
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

/** The deliveries of one webhook, which names their app. */
export const deliveryOf = (webhook: { app_id: string | null }) => (d: DeliveryRow) =>
  presentDelivery({ ...d, app_id: webhook.app_id });

export function presentAttempt(a: AttemptRow) {
  return {
    number: a.number,
    started_at: iso(a.started_at),
    duration_ms: a.duration_ms,
    response_status: a.response_status,
    response_body: a.response_body,
    request_headers: a.request_headers ? (JSON.parse(a.request_headers) as Record<string, string>) : null,
    response_headers: a.response_headers ? (JSON.parse(a.response_headers) as Record<string, string>) : null,
    error: a.error,
  };
}
