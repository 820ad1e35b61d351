-- The merchant's events page (API.md section 10): events by merchant and mode, newest first, and found by
-- the id of the object they are about (`q`, a data.id). Each index is one more entry per ingested event;
-- the page cannot be served without them (a scan of every event of every merchant).
create index events_merchant_idx on events (merchant_id, mode, id desc);
create index events_data_id_idx on events (merchant_id, mode, ((payload::jsonb #>> '{data,id}')));

-- An event's deliveries, for the event page and resend: one more entry per delivery.
create index deliveries_event_idx on deliveries (event_id);

-- Endpoint health: the last attempt of a real (non-test) delivery, kept on the webhook by the statement
-- that records outcomes, so the list reads it without touching the attempts.
alter table webhooks add column last_attempt_at timestamptz, add column last_response_status integer;
