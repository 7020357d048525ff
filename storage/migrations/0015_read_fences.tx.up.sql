-- Where each principal's last write ended in the primary's WAL (storage's
-- replica.go): while a read replica has not replayed that far, the
-- principal's reads stay on the primary, so a client reads its own writes
-- whichever process serves its next request. UNLOGGED on PostgreSQL: a
-- fence matters for seconds, needs no WAL of its own and no replica copy, and
-- rows older than the replica's largest allowed lag are deleted as reads go.
-- A SQLite store has no replica and leaves the table empty.

CREATE {{if .Postgres}}UNLOGGED {{end}}TABLE read_fences (
    principal TEXT NOT NULL PRIMARY KEY,
    lsn BIGINT NOT NULL,
    written_at {{.Timestamp}} NOT NULL
);
