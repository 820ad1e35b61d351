-- App webhooks (API.md section 11.1): a webhook may belong to an app of its merchant (`app_id`), and then
-- receives the events of every merchant that installed the app in its mode. The fan-out stays one statement,
-- the outbox function of migration 0092: the event, the merchant's own deliveries and the installed apps'
-- deliveries together.

alter table webhooks add column app_id text collate "C";
-- The fan-out reaches an app's webhooks by app: one short range per installed app, however many webhooks
-- other apps or merchants have.
create index webhooks_app_idx on webhooks (app_id, mode) where app_id is not null and deleted_at is null;

-- An app delivery names the installation it was made for, so that its body (the event's payload plus
-- app_id, grant_id and store_id) is the same on every attempt, even after an uninstall: composed at send time
-- from the stored event and these two columns (src/modules/webhooks/delivery-body.ts). Null for a merchant's
-- own deliveries, which send the event's payload as it is.
alter table deliveries add column grant_id text collate "C", add column store_id text collate "C";
