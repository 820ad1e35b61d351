-- The attempts list's page of one endpoint's attempts of one outcome and one type (the dashboard's Attempts
-- view and `svc attempts --webhook --outcome --type`) as one range read: with only the single-filter indexes
-- of 0130 the planner walked the endpoint's index and filtered the rest, which reads every attempt of the
-- endpoint when the combination is rare or absent (p95 1.5 s at ten million attempts). The same index serves
-- an endpoint's attempts of one outcome when that outcome is rare. docs/decisions/0140-attempts-listed-from-their-own-rows.md.
create index delivery_attempts_webhook_outcome_type_idx on delivery_attempts (webhook_id, outcome, event_type, id desc);
