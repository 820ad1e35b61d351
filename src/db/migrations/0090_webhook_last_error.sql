-- The health block of a webhook says what its last attempt met in words ("connection refused", "timed out
-- after 15 s"), not only its HTTP status, which is null whenever no answer came: the attempt's error, kept
-- beside last_response_status by the same statement.
alter table webhooks add column last_error text;
