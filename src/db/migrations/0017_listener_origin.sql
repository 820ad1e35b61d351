-- Where a `svc listen` session began: the first stream's opening, carried by every reconnect's listener. A
-- reconnect replays the settle window before the last event the client saw, but never before this, so an
-- event recorded before the client started listening is not sent to it as "missed".
alter table webhooks add column listen_from timestamptz;
