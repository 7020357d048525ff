-- Idempotency-Key (docs/writes.md, "Safe retries"; storage/idempotency.go):
-- one row per key a caller sent with a write, so that a retry of the same
-- request gets the first answer again instead of writing twice.
--
-- owner is the caller the key belongs to (the application, organization,
-- client and user): keys are never shared between callers. fingerprint is
-- the SHA-256 of what makes the request (method, target, format, body): the
-- same key with another request is refused. A row is first claimed, in a
-- transaction of its own, with claim (a random token of the request that
-- holds it) and locked_until (nanoseconds since 1970): while it runs, a
-- retry is answered 409. The request then writes its answer (status,
-- headers, body) into the row in the transaction of its write, so that the
-- write and its answer commit together: a process killed before the commit
-- left neither, and a retry after locked_until claims the key again; one
-- killed after it left both, and a retry gets the answer. expires_at
-- (nanoseconds) ends the key's life (--idempotency-ttl); the housekeeping
-- deletes expired rows.
CREATE TABLE idempotency_keys (
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    organization_id BIGINT NOT NULL,
    fingerprint TEXT NOT NULL,
    claim TEXT NOT NULL,
    locked_until BIGINT NOT NULL,
    status INTEGER,
    headers TEXT,
    body TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (owner, key)
);

--bun:split

CREATE INDEX idempotency_keys_owner_expires_at_idx ON idempotency_keys (owner, expires_at);

--bun:split

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
