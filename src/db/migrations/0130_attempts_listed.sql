-- Every attempt of a merchant's endpoints, listed and filtered across them (API.md section 12.2,
-- GET /webhook-attempts; docs/decisions/0140-attempts-listed-from-their-own-rows.md). An attempt row gets its own
-- time-sortable id (`att_` + its start time, src/lib/ids.ts) and copies of what the list filters by, written by
-- the statement that records it (record-outcomes.repository.ts): a join to deliveries cannot be walked in id
-- order by one index, and one merchant may hold ten million attempts.
alter table delivery_attempts
  add column id text collate "C",
  add column merchant_id text collate "C",
  add column mode text,
  add column webhook_id text collate "C",
  add column event_id text collate "C",
  add column event_type text collate "C",
  add column store_id text collate "C",
  add column app_id text collate "C",
  add column outcome text;

-- The attempts recorded before: each from its delivery and its webhook, its id from its start time (the ten
-- characters of src/lib/ids.ts) and 80 random bits in hex, whose characters are in the id alphabet.
update delivery_attempts a
set id = 'att_' || (
      select string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz',
                               (((floor(extract(epoch from a.started_at) * 1000)::bigint) >> (5 * (9 - i))) & 31)::int + 1,
                               1), '' order by i)
      from generate_series(0, 9) i) || substr(md5(gen_random_uuid()::text), 1, 20),
    merchant_id = d.merchant_id,
    mode = d.mode,
    webhook_id = d.webhook_id,
    event_id = d.event_id,
    event_type = d.event_type,
    store_id = d.store_id,
    app_id = w.app_id,
    outcome = case when a.response_status between 200 and 299 then 'succeeded'
                   when a.response_status is not null then 'failed'
                   when a.error like 'blocked_address%' then 'refused'
                   when a.error like 'timeout%' then 'timeout'
                   else 'network_error' end
from deliveries d left join webhooks w on w.id = d.webhook_id
where d.id = a.delivery_id;
-- An attempt whose delivery is gone was due to go with it (purge-expired.repository.ts).
delete from delivery_attempts where id is null;

alter table delivery_attempts
  alter column id set not null,
  alter column merchant_id set not null,
  alter column mode set not null,
  alter column webhook_id set not null,
  alter column event_id set not null,
  alter column event_type set not null,
  alter column outcome set not null,
  add constraint delivery_attempts_outcome_check
    check (outcome in ('succeeded', 'failed', 'timeout', 'network_error', 'refused'));

-- One index per filter, each in the list's order (id desc), so that the default page, a cursor, a time window
-- and each single filter are one range read of at most a page, however many attempts the merchant has
-- (test/webhooks/attempts.test.ts reads each plan). Seven entries per attempt in all: the recording statement
-- writes one row per attempt and these entries with it (the decision record has what that costs).
create index delivery_attempts_page_idx on delivery_attempts (merchant_id, mode, id desc);
create index delivery_attempts_webhook_idx on delivery_attempts (webhook_id, id desc);
create index delivery_attempts_type_idx on delivery_attempts (merchant_id, mode, event_type, id desc);
create index delivery_attempts_outcome_idx on delivery_attempts (merchant_id, mode, outcome, id desc);
create index delivery_attempts_class_idx on delivery_attempts (merchant_id, mode, (response_status / 100), id desc)
  where response_status is not null;
-- Only app deliveries carry a store or an app: a merchant's own attempts write no entry in these two.
create index delivery_attempts_store_idx on delivery_attempts (merchant_id, mode, store_id, id desc)
  where store_id is not null;
create index delivery_attempts_app_idx on delivery_attempts (app_id, id desc) where app_id is not null;

-- An app webhook's deliveries by installing store (GET /webhooks/{id}/deliveries?store_id=): only app
-- deliveries, which name a store, have an entry.
create index deliveries_store_idx on deliveries (webhook_id, store_id, id desc) where store_id is not null;
