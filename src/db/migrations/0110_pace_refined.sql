-- The adaptive pace refines a decrease with the successes counted in the second after it
-- (record-outcomes.repository.ts; docs/decisions.md, "Pace, sequence and order"). `slowed_from` is what the
-- last decrease started from, the least of the rate_limit and the pace then (null: the endpoint was
-- unconstrained); a refinement never raises the pace above that decrease.
alter table webhook_paces add column slowed_from double precision;
