-- The delivery module's part of the health counts (migration 0205, docs/decisions/0205-webhook-health-counters.md):
-- every statement that inserts deliveries hands its new rows to the webhooks module's function, which counts
-- them in webhook_delivery_counts. A statement-level trigger, so each path that makes deliveries (the outbox's
-- fan-out, resend, replays, listeners) is counted without a line of its own, in its own statement.
create trigger deliveries_counted after insert on deliveries
  referencing new table as made_deliveries for each statement execute function webhook_deliveries_count();

