-- Which claim holds a key: a token the claiming request makes (http/idempotency.ts). A request
-- whose database went away cannot release its key when it answers; it keeps trying until the
-- database is back, and releases the key only if that claim still holds it — also a claim that
-- reached the server only after the request had given up (a frozen server thawed), and never a
-- retry's that took the key over since.
alter table idempotency_keys add column lease text;
