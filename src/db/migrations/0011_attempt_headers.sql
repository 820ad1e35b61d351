-- What was sent and what came back, per attempt (the delivery view shows both): the request's headers (the
-- body is the event's payload, stored once) and the answer's headers, as JSON objects in text.
alter table delivery_attempts add column request_headers text, add column response_headers text;
