-- Payload filters (API.md section 12.2). `filter`: null (every event of the subscribed types) or
-- {"all":[...]} / {"any":[...]} of up to 20 conditions {"path","op","value"}, checked by the webhooks module
-- (webhook-rules.ts) and evaluated by the outbox's fan-out (svc_payload_matches, migration 0141).
alter table webhooks add column filter jsonb;

-- What a filter refused, counted by the hour for `health.filtered_24h`: no delivery row is written for a
-- refused event, so the fan-out counts it here (docs/decisions/0145-payload-filters-in-the-fan-out.md). Keyed
-- by the event's merchant too: only that merchant's recordings add to a row, and they are already serialised
-- by its event_sequences row, so an app webhook heard by many merchants is no point of contention. Purged
-- after two days by the delivery module's retention.
create table webhook_filtered_counts (
  webhook_id text not null,
  hour timestamptz not null,
  merchant_id text not null,
  filtered integer not null,
  primary key (webhook_id, hour, merchant_id)
);
create index webhook_filtered_counts_hour_idx on webhook_filtered_counts (hour);
