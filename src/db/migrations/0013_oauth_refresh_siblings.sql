-- Refresh siblings (API.md section 5). A rotated refresh token presented again within the grace issues a
-- sibling pair beside the one issued before it; both pairs then carry `branch_of` (the hash of the refresh
-- token they branch from) and the refresh row names its access twin. The first sibling refreshed marks the
-- others `revoked_at` (a tombstone, kept while the family lives: presenting it is reuse) and deletes their
-- access tokens. Unbranched pairs leave all three columns null, so the common refresh only checks
-- `branch_of is null` on the row it already reads, and the partial index is never written for it.
alter table oauth_tokens add column branch_of bytea;
alter table oauth_tokens add column twin_access bytea;
alter table oauth_tokens add column revoked_at timestamptz;
create index oauth_tokens_branch_idx on oauth_tokens (branch_of) where branch_of is not null;
