-- Failed credential checks at the token endpoints, counted per key in fixed
-- windows (storage/failures.go). PostgreSQL processes share their counts here,
-- so N processes on one database allow no more attempts than one; a SQLite
-- store (one process) counts in memory and leaves this table empty. The key
-- is the hexadecimal SHA-256 of what is counted (never a user name itself);
-- rows whose window ended are deleted as the counter goes.

CREATE TABLE credential_failures (
    key TEXT NOT NULL PRIMARY KEY,
    failures INTEGER NOT NULL,
    ends_at {{.Timestamp}} NOT NULL
);

--bun:split

CREATE INDEX credential_failures_ends_at_idx ON credential_failures (ends_at);
