-- Change events (issue 19): every committed change of a record leaves one
-- row here, written in the transaction of the change (a transactional
-- outbox), read by GET /admin/api/events. Thin: the names of what changed,
-- never the values.
--
-- events is the feed, in the order consumers follow it: its id is the
-- event's position. On SQLite one writer at a time means the order rows
-- are inserted in is the order they commit in, so writers insert here
-- directly. On PostgreSQL transactions commit in any order, so writers
-- insert into event_outbox, stamped with their transaction id, and the
-- sequencer (storage/eventfeed.go) moves an outbox row into events, taking
-- the next position, only once no transaction that started before it is
-- still running: a follower that read position n never sees a later commit
-- appear below n.
-- On SQLite the id is the rowid without AUTOINCREMENT, and the table has no
-- index: each event then adds one page at most to its write's commit (the
-- table's last), no sqlite_sequence row and no index page (the note
-- triggers, eventtrigger.go, put an event in the statement of most writes,
-- and each page a commit writes is a system call). The feed reads it by
-- id, a range of the rowid; an organization's events are filtered as they
-- are read, which suits the one process, and usually one organization, of
-- a SQLite database. The largest id is never reused because the
-- housekeeping always keeps the newest event (DeleteEventsBefore).
CREATE TABLE events (
    id {{if .Postgres}}BIGINT{{else}}INTEGER{{end}} PRIMARY KEY,
    organization_id BIGINT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    action TEXT NOT NULL,
    changed_attributes {{.JSON}} NOT NULL,
    changed_relationships {{.JSON}} NOT NULL,
    version BIGINT,
    client_id TEXT,
    user_id BIGINT,
    occurred_at {{.Timestamp}} NOT NULL
);

{{if .Postgres}}
--bun:split

CREATE INDEX events_organization_id_id_idx ON events (organization_id, id);

--bun:split

CREATE INDEX events_occurred_at_idx ON events (occurred_at);

--bun:split

CREATE TABLE event_outbox (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
    organization_id BIGINT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    action TEXT NOT NULL,
    changed_attributes JSONB NOT NULL,
    changed_relationships JSONB NOT NULL,
    version BIGINT,
    client_id TEXT,
    user_id BIGINT,
    occurred_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE SEQUENCE event_positions;
{{end}}
--bun:split

-- The client that sent a batch, which the change events of its chunks name
-- as the events of a single request name theirs.
ALTER TABLE async_operations ADD COLUMN client_id TEXT;

--bun:split

-- integration: reads the events feed and every record of its organization,
-- changes nothing (DESIGN §8).
INSERT INTO userroles (code, label) VALUES ('ROLE_INTEGRATION', 'Integration');
