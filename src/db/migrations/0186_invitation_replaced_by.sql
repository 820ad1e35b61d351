-- A second invitation to an address replaces the pending one (issue 47): the answer says so, and the first
-- link, withdrawn, answers that a newer invitation replaced it rather than the generic "unknown, used,
-- withdrawn or expired". The newer invitation's id, set with `withdrawn_at`; null for any other withdrawal.
-- docs/decisions/0186-second-invitation-replaces-and-says-so.md.
alter table invitations add column replaced_by text collate "C";
