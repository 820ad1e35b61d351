-- The audit chain (API.md section 11.5): each entry gets `sequence` (1, 2, 3, ... per merchant and mode) and
-- `hash` (SHA-256 hex over `prev_hash` and the entry's canonical JSON), given by the audit module's sealer
-- after the entry commits (src/modules/audit/seal-entries.repository.ts). audit_logs itself is never
-- updated: sealing an entry in place rewrote its row and all six of its index entries (26.6 us of
-- PostgreSQL CPU per entry, against 5.0 for a row here), which the sealer would have paid for every token
-- refresh (0.43 ms of CPU in all).

-- What the sealer has left to do, oldest first: every writer adds its entries here in the statement that
-- writes them (`auditCtes`), and the sealer removes them as it seals them. A few seconds' worth of rows once
-- the sealer has caught up. The entries of before the chain are queued here, to be sealed oldest first.
create table audit_pending (
  log_id text collate "C" primary key
);
insert into audit_pending (log_id) select id from audit_logs;

-- The seals: one row per entry, gapless per merchant and mode (the primary key never takes a sequence
-- twice; only the sealer writes here, under its lock). No foreign key: its check cost 3.4 us per seal, and
-- merchants are never deleted.
create table audit_chain (
  merchant_id text collate "C" not null,
  mode text not null,
  sequence bigint not null,
  log_id text collate "C" not null,
  hash text collate "C" not null,
  prev_hash text collate "C" not null,
  primary key (merchant_id, mode, sequence)
);
-- An entry's seal, for the list's pages.
create unique index audit_chain_log_idx on audit_chain (log_id);
