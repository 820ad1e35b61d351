-- Totals of the audit log per merchant, mode and filter, so that `count` of a page stays cheap with millions
-- of entries: counting 1,000,000 index entries takes 40-80 ms here, summing 16 counter rows well under 1 ms.
-- Keys: '*' (no filter), 'family:<f>', 'action:<a>', 'entity_type:<t>'. Each key is split over 16 shards (by
-- transaction id) so that concurrent writers of one merchant do not queue on a single row.
create table audit_counts (
  merchant_id text collate "C" not null references merchants (id) on delete cascade,
  mode text not null,
  key text collate "C" not null,
  shard smallint not null,
  n bigint not null,
  primary key (merchant_id, mode, key, shard)
);
