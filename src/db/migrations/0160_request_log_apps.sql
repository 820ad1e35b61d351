-- The app's requests for its owner (API.md section 12.3), in the requests module's table. A call made with an
-- app's access token is written once for the merchant whose data it touches, as before, and once more for
-- the merchant that owns the app when that is another merchant (`for_owner`); a call refused because the
-- installation was disconnected or the token expired is written for the owner only. Every entry of an app's
-- call (access token or client secret) carries `app_id`, and an access token's call the installation's
-- `store_id`. docs/decisions/0155-app-requests-for-the-owner.md.
alter table request_logs add column app_id text collate "C";
alter table request_logs add column store_id text collate "C";
alter table request_logs add column for_owner boolean not null default false;

-- The merchant's own list leaves the owner's entries out: its range must not hold them, or a developer whose
-- app is busy on a thousand stores would read past their calls to fill each page of its own.
drop index request_logs_page_idx;
create index request_logs_page_idx on request_logs (merchant_id, mode, created_at desc, request_id desc)
  where not for_owner;
-- `app_id=`: one app's calls in this merchant's log, newest first (its own entries and the owner's).
create index request_logs_app_idx on request_logs (merchant_id, mode, app_id, created_at desc, request_id desc)
  where app_id is not null;
