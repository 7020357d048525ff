-- Idempotency-Key (docs/writes.md, "Safe retries"; docs/decisions.md §21;
-- storage/idemstore): one row per key a caller sent with a write and the
-- answer the write got, so that a retry of the same request gets that
-- answer again instead of writing twice.
--
-- owner is the caller the key belongs to (the first 128 bits of the SHA-256
-- of the application, organization, client and user, in hexadecimal): keys
-- are never shared between callers. The primary key's order serves the
-- count of a caller's keys too; one index more (expires_at) serves the
-- housekeeping: each keyed write adds its row to two B-trees.
-- fingerprint is the SHA-256 of what makes the request (method, target,
-- format, body): the same key with another request is refused. The row is
-- written in the transaction of the write, so that the write and its answer
-- commit together: a process killed before the commit left neither, and a
-- retry runs the request; one killed after it left both, and a retry gets
-- the answer. While the first request runs, its transaction holds the key
-- (an advisory lock on PostgreSQL, the one writer on SQLite) and a retry is
-- answered 409. expires_at (nanoseconds since 1970) ends the key's life
-- (--idempotency-ttl); the housekeeping deletes expired rows.
CREATE TABLE idempotency_keys (
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    organization_id BIGINT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    headers TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (owner, key)
);

--bun:split

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
