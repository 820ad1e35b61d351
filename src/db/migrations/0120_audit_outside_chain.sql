-- Entries outside the audit chain: rows of audit_logs that no writer of the service made, so that nothing
-- queued them for the sealer and they will never be sealed (an INSERT by hand, by an operator or an
-- attacker). The chain check counts them and the export flags them (docs/guides/audit.md).
--
-- Finding them must not scan the log: a row is neither sealed nor queued only by the absence of two other
-- rows, which no index of audit_logs can tell. So the writers (`auditCtes`) say it as they insert:
-- `via_writer` is true in their statement and false by default, and a partial index holds the rows where it
-- is false, which the writers never add to. A row never leaves it: marking rows once sealed would update
-- every entry, and an update of audit_logs is what the chain's design avoids (26.6 us of PostgreSQL CPU per
-- entry, migration 0070). The check joins the index's few rows to the seals and the queue instead, so an
-- entry queued by hand afterwards, and then sealed, stops being reported.
--
-- Added with `default true`, which PostgreSQL stores once in the catalogue without rewriting the table, so
-- that the entries written before this migration count as the writers' own; then the default that applies
-- to new rows becomes false.
alter table audit_logs add column via_writer boolean not null default true;
alter table audit_logs alter column via_writer set default false;

-- Rows already outside the chain (inserted by hand before this migration) are marked here: one pass over the
-- log, once, by walking audit_logs' primary key beside the seals' and the queue's indexes (a merge join). The
-- planner's choice, a hash join, spilled its 300,000 seals to temporary files: 10.0 s on PGlite against 2.8-4.2
-- for the merge, 1.9-2.3 s on PostgreSQL against 1.4 (300,000 entries, load average 19 on 2 cores). A work_mem
-- of 64 MB kept it in memory and took 4.2-5.6 s on PGlite, memory its WebAssembly heap never gives back.
set local enable_hashjoin = off;
update audit_logs a set via_writer = false
 where not exists (select 1 from audit_chain c where c.log_id = a.id)
   and not exists (select 1 from audit_pending p where p.log_id = a.id);
reset enable_hashjoin;

create index audit_logs_outside_idx on audit_logs (merchant_id, mode, id desc) where not via_writer;
