-- Totals of the attempts list (GET /webhook-attempts, API.md 12.2) per merchant, mode and filter, so that the
-- `count` of a page stays cheap with millions of attempts, as audit_counts does for the audit log (0005):
-- counting every match took most of a page's time (100 ms at 100,000 attempts, growing with them). Keys: '*'
-- (no filter), 'w:<webhook>', 't:<event type>', 'o:<outcome>', 'c:<status class>', 's:<store>', 'a:<app>', and
-- the dashboard's usual combinations, in that order: a webhook with an outcome, a type or a class ('w:<webhook>
-- o:<outcome>'), an outcome with a type, and all three of webhook, outcome and type. Each key is split over 16
-- shards (by transaction id), so concurrent workers of one merchant do not queue on one row.
-- Kept by triggers on delivery_attempts, for every statement that inserts or deletes attempts (the outcomes'
-- batch, a listener's outcome, the retention purge) in the same transaction: exact, and no round trip more.
create table delivery_attempt_counts (
  merchant_id text collate "C" not null,
  mode text not null,
  key text collate "C" not null,
  shard smallint not null,
  n bigint not null,
  primary key (merchant_id, mode, key, shard)
);

-- The keys an attempt counts under, in one place for the trigger and the backfill below: a set-returning SQL
-- function of one SELECT, which the planner inlines into each caller's statement.
create function delivery_attempt_keys(a delivery_attempts) returns setof text
language sql immutable as $$
  select k.key from (values ('*'), ('w:' || a.webhook_id), ('t:' || a.event_type), ('o:' || a.outcome),
                            ('c:' || (a.response_status / 100)), ('s:' || a.store_id), ('a:' || a.app_id),
                            ('w:' || a.webhook_id || ' o:' || a.outcome),
                            ('w:' || a.webhook_id || ' t:' || a.event_type),
                            ('w:' || a.webhook_id || ' c:' || (a.response_status / 100)),
                            ('o:' || a.outcome || ' t:' || a.event_type),
                            ('w:' || a.webhook_id || ' o:' || a.outcome || ' t:' || a.event_type)) as k(key)
  where k.key is not null
$$;

create function delivery_attempts_count() returns trigger
language plpgsql as $$
begin
  -- rows taken in one order (merchant, mode, key), so two writers never wait on each other in a circle
  insert into delivery_attempt_counts as c (merchant_id, mode, key, shard, n)
  select a.merchant_id, a.mode, k.key, (txid_current() % 16)::smallint,
         case when tg_op = 'INSERT' then count(*) else -count(*) end
  from changed_attempts a
  cross join lateral delivery_attempt_keys(a) as k(key)
  group by a.merchant_id, a.mode, k.key
  order by a.merchant_id, a.mode, k.key
  on conflict (merchant_id, mode, key, shard) do update set n = c.n + excluded.n;
  return null;
end $$;

create trigger delivery_attempts_counted after insert on delivery_attempts
  referencing new table as changed_attempts for each statement execute function delivery_attempts_count();
create trigger delivery_attempts_uncounted after delete on delivery_attempts
  referencing old table as changed_attempts for each statement execute function delivery_attempts_count();

insert into delivery_attempt_counts (merchant_id, mode, key, shard, n)
select a.merchant_id, a.mode, k.key, 0, count(*)
from delivery_attempts a
cross join lateral delivery_attempt_keys(a) as k(key)
group by a.merchant_id, a.mode, k.key;
