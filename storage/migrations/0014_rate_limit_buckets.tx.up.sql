-- The request rate of each client of the APIs, shared by every process on the
-- database (docs/decisions.md §14, storage/ratebuckets.go): one row per client
-- whose bucket is not full, its state as the time at which it would be full
-- again (tat, nanoseconds since 1970, GCRA's theoretical arrival time). Each
-- process adds what it allowed every --rate-limit-share seconds and reads what
-- the others added, so no request waits for the database. The key is the
-- hexadecimal SHA-256 of the client's name (never an address itself); pushed
-- is the time the last push added (the upsert reads it as excluded.pushed);
-- updated_at (nanoseconds, the pushing process's clock) lets a process read
-- only the rows changed lately. Rows full for a while are deleted as it goes.

CREATE TABLE rate_limit_buckets (
    key TEXT NOT NULL PRIMARY KEY,
    tat BIGINT NOT NULL,
    pushed BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

--bun:split

CREATE INDEX rate_limit_buckets_updated_at_idx ON rate_limit_buckets (updated_at);

--bun:split

CREATE INDEX rate_limit_buckets_tat_idx ON rate_limit_buckets (tat);
