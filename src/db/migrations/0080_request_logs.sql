-- Request logs (API.md section 11.6), owned by the requests module (src/modules/requests/): one row per call
-- of the public interface, written in batches by the recorder, kept SVC_REQUEST_LOG_RETENTION_DAYS.
--
-- Partitioned by day on created_at: the retention purge drops whole days (DROP TABLE of a partition: no
-- row-by-row DELETE, no vacuum debt, the same cost at a thousand rows or a billion). Partitions are named
-- request_logs_pYYYYMMDD and made ahead by the module's loop, or on demand by a batch that finds its day
-- missing. No default partition: a row of a day not made yet would land there and block that day's
-- partition from being created.
--
-- No foreign key to merchants: a check per row on the hot write, for log rows that expire on their own.
-- `request_id` is the X-Request-Id the call answered with: an echoed one is kept as the client sent it, so it
-- is neither unique nor time-ordered, and the page order is (created_at, request_id).
create table request_logs (
  created_at timestamptz not null,
  merchant_id text collate "C" not null,
  mode text not null,
  request_id text collate "C" not null,
  method text not null,
  path text not null,
  route text,
  status smallint not null,
  error_code text,
  duration_ms real not null,
  credential_type text not null,
  credential_id text collate "C" not null,
  credential_last4 text not null,
  ip text,
  user_agent text,
  idempotency_key text,
  idempotent_replayed boolean not null,
  error text
) partition by range (created_at);

-- The list, newest first, and what its cursor continues after; the filters narrow this range.
create index request_logs_page_idx on request_logs (merchant_id, mode, created_at desc, request_id desc);
-- The detail route and the cursor: a request id of one merchant and mode.
create index request_logs_request_idx on request_logs (merchant_id, mode, request_id, created_at desc);

-- `count` of a page without scanning a week of entries: totals per day, merchant, mode and filter key ('*',
-- 'class:4xx', 'status:404', 'method:GET', 'error:<code>', 'credential:<id>'), bumped by the batch that
-- writes the entries and deleted with their day's partition. Summing 7 days of one key reads at most a few
-- dozen rows, where counting a busy merchant's week of entries reads millions.
create table request_log_counts (
  day date not null,
  merchant_id text collate "C" not null,
  mode text not null,
  key text collate "C" not null,
  n bigint not null,
  primary key (merchant_id, mode, key, day)
);
create index request_log_counts_day_idx on request_log_counts (day);
