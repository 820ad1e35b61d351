-- Idempotency keys per principal (API.md section 1): within a merchant and mode, each credential owner has
-- its own key space (`key:<key pair>`, `app:<app>`, `user:<user>`), so two apps installed by one merchant
-- never replay or block each other's keys. Answers are now stored sealed (AES-256-GCM under the master key)
-- because merchant answers carry secrets; the rows of the old scheme are neither scoped nor sealed, and are
-- only a 24 h replay cache, so they go.
delete from idempotency_keys;
alter table idempotency_keys add column principal text collate "C" not null;
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (merchant_id, mode, principal, key);
