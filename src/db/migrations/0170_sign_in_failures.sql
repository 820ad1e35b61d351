-- The sign-in failure budgets (API.md 11.3: one per user, one per client address), shared by every process
-- and kept through a restart: before this they were counted in each process's memory, so N processes gave an
-- attacker N budgets, and a restart gave a fresh one (docs/decisions/0161-sign-in-budgets-shared.md).
--
-- One row per budget that has failures: `scope` is `account` (keys `a:`, `p:` and `d:` of sign-in-limits.ts)
-- or `address`; `key` is the SHA-256 of the budget's key, so that no email or address tried by a stranger is
-- stored in clear. Times are the service clock's epoch milliseconds, passed by the caller like every decision
-- by time. Only failures write here, and a success deletes its row: the table holds what attackers and
-- mistyping owners left in the last hour, and the session purge removes rows past their forgetting.
create table sign_in_failures (
  scope text not null,
  key text not null,
  failures integer not null,
  last_failure_ms bigint not null,
  blocked_until_ms bigint not null,
  primary key (scope, key)
);
-- The purge's scan: rows whose last failure is old.
create index sign_in_failures_last_idx on sign_in_failures (last_failure_ms);
