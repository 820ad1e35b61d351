-- Replays by filter (API.md section 12.2, docs/decisions/0146-replays-behind-live-deliveries.md).
-- A replay's deliveries are written parked as 'replay': out of the due index, taken by a claim only after the
-- due (live) candidates, from deliveries_replay_idx in id order, so that a replay never comes before a new
-- event's first attempt.
alter table deliveries drop constraint deliveries_parked_check;
alter table deliveries add constraint deliveries_parked_check check (parked in ('pace', 'order', 'replay'));
create index deliveries_replay_idx on deliveries (id) where status = 'pending' and parked = 'replay';

-- A replay and its progress. The background loop (replay.ts) advances the oldest-touched running replay by a
-- batch per statement, which locks the row (SKIP LOCKED: two workers never take one replay at once), writes
-- the batch's deliveries and moves the cursor, in one transaction: a restart continues where the last commit
-- left it. `source`: 'deliveries' walks the webhook's deliveries by id (status failed, and every replay of an
-- app webhook), 'events' the merchant's events by sequence (status all of a merchant's own webhook).
create table webhook_replays (
  id text primary key,
  merchant_id text not null,
  mode text not null,
  webhook_id text not null,
  status text not null check (status in ('running', 'done', 'cancelled')),
  event_status text not null check (event_status in ('failed', 'all')),
  since timestamptz not null,
  until timestamptz not null,
  event_types text[],
  store_id text,
  source text not null check (source in ('deliveries', 'events')),
  after_id text,
  after_sequence bigint,
  end_sequence bigint,
  matched integer not null,
  queued integer not null default 0,
  skipped integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  finished_at timestamptz
);
create index webhook_replays_webhook_idx on webhook_replays (webhook_id, id desc);
create index webhook_replays_running_idx on webhook_replays (updated_at) where status = 'running';
