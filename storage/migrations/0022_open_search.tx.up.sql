-- The open full-text index (issue 33; docs/fields.md): the searched
-- attributes every reader of a table's records may read, for callers whose
-- roles may not read the others (x-readers). A search by such a caller
-- reads this index, so that its words never match a value the caller may
-- not see. storage.OpenSearchColumns lists the same columns, and
-- TestSearchIndexesFollowTheDocuments holds the documents, that list and
-- this schema in step.
--
-- users: username, firstName and lastName; not email (managers and up).
--
-- PostgreSQL: a generated column beside search_vector, in the same
-- configuration (storage/searchconfig.go rebuilds it with the others).
-- SQLite: a contentless FTS5 table of its own, kept by its own triggers,
-- which write the index in their statement (the users are few, and written
-- by administrators; migration 0019's notes serve the default index).
{{if .Postgres}}
ALTER TABLE users ADD COLUMN search_vector_open tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(username, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX users_search_vector_open_idx ON users USING GIN (search_vector_open);
{{else}}
CREATE VIRTUAL TABLE users_search_open USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER users_search_open_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_search_open (rowid, body) VALUES (new.id, coalesce(new.username, '') || ' ' || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_open_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_search_open (users_search_open, rowid, body) VALUES ('delete', old.id, coalesce(old.username, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_open_update AFTER UPDATE OF username, first_name, last_name ON users WHEN old.username IS NOT new.username OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name BEGIN
    INSERT INTO users_search_open (users_search_open, rowid, body) VALUES ('delete', old.id, coalesce(old.username, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
    INSERT INTO users_search_open (rowid, body) VALUES (new.id, coalesce(new.username, '') || ' ' || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''));
END;

--bun:split

INSERT INTO users_search_open (rowid, body) SELECT id, coalesce(username, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') FROM users;
{{end}}
