-- The names of a call's body fields (issue 47): a developer reading a refused call sees what it sent, by name
-- only: the top-level keys of a JSON object or form body, never a value (a secret sent in a field stays
-- unrecorded). A JSON array of strings; null for a call without such a body. Written by the recorder's COPY
-- with the other columns. docs/decisions/0185-request-body-field-names.md.
alter table request_logs add column body_fields jsonb;
