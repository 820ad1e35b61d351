-- An endpoint's health (API.md section 10: deliveries_24h, success_rate_24h) from counters instead of a count
-- of its last day's deliveries on every read (docs/decisions/0205-webhook-health-counters.md): the webhooks
-- list counted 10 deliveries of each of 100 endpoints per page, 12.0 ms of CPU a page, growing with the
-- traffic. Per webhook and hour of creation (as deliveries' ids and created_at give it), the real (non-test)
-- deliveries made, those with at least one attempt, and those succeeded. `source`: whom the creations were
-- made for (the installation of an app webhook, else the merchant), so that fan-outs of different merchants
-- to one app webhook never queue on one row, as webhook_filtered_counts (0140) is keyed by the event's
-- merchant; '' for the changes the outcome statement records (recordHealth), whose batches already serialise
-- per webhook on its row of webhooks. Purged after two days by the delivery module's retention.
-- Ids in collation "C", as every id column: the key is then found by webhooks.id (a default collation left
-- webhook_filtered_counts (0140) read by a sequential scan per webhook listed, changed below).
create table webhook_delivery_counts (
  webhook_id text collate "C" not null,
  hour timestamptz not null,
  source text collate "C" not null,
  deliveries integer not null default 0,
  attempted integer not null default 0,
  succeeded integer not null default 0,
  primary key (webhook_id, hour, source)
);
create index webhook_delivery_counts_hour_idx on webhook_delivery_counts (hour);
alter table webhook_filtered_counts alter column webhook_id type text collate "C",
  alter column merchant_id type text collate "C";

-- Creations, counted by a trigger in the statement that inserts them, whichever it is (the outbox's fan-out,
-- a resend, a replay's batch, a listener's stream, a seed): one upsert per statement, from its transition
-- table (the delivery module attaches it to its table, migration 0206), as delivery_attempt_counts (0172) is kept. An inserted row that already has attempts or succeeded
-- (only seeds write such) is counted so too. Rows taken in key order, so two writers never wait in a circle.
create function webhook_deliveries_count() returns trigger
language plpgsql as $$
begin
  insert into webhook_delivery_counts as c (webhook_id, hour, source, deliveries, attempted, succeeded)
  select d.webhook_id, date_bin('1 hour', d.created_at, timestamptz '2000-01-01 00:00:00+00'),
         coalesce(d.grant_id, d.merchant_id), count(*), count(*) filter (where d.attempt_count > 0),
         count(*) filter (where d.status = 'succeeded')
  from made_deliveries d
  where not d.test
  group by 1, 2, 3
  order by 1, 2, 3
  on conflict (webhook_id, hour, source) do update
    set deliveries = c.deliveries + excluded.deliveries, attempted = c.attempted + excluded.attempted,
        succeeded = c.succeeded + excluded.succeeded;
  return null;
end $$;

-- The last two days as they stand, found by the primary key: ids begin with their creation time in
-- milliseconds, 10 Crockford base32 characters (src/lib/ids.ts), so the floor is encoded 5 bits at a time.
insert into webhook_delivery_counts (webhook_id, hour, source, deliveries, attempted, succeeded)
select d.webhook_id, date_bin('1 hour', d.created_at, timestamptz '2000-01-01 00:00:00+00'),
       coalesce(d.grant_id, d.merchant_id), count(*), count(*) filter (where d.attempt_count > 0),
       count(*) filter (where d.status = 'succeeded')
from deliveries d
where d.id >= (select 'dlv_' || string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz',
                                                  ((t.ms >> (5 * (9 - k))) & 31)::int + 1, 1), '' order by k)
               from (select (extract(epoch from now() - interval '2 days') * 1000)::bigint as ms) t,
                    generate_series(0, 9) k)
  and d.id < 'dlv_zzzzzzzzzzz'
  and not d.test
group by 1, 2, 3;
