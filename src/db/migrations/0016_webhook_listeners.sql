-- `svc listen` (API.md section 10): a listener is a webhook endpoint of its own kind, alive while its stream
-- is open. Its events column stays empty, so the fan-out of svc_record_event(s) never makes deliveries for
-- it: the stream reads the events itself and records one delivery per event it sends, with no due time, so
-- the workers' claim never sees them either (deliveries_due_idx holds only rows with next_attempt_at set).
alter table webhooks add column kind text not null default 'endpoint' check (kind in ('endpoint', 'listener'));
