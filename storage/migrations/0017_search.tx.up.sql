-- Full-text search (issue 32; docs/queries.md, "Search"): the words of the
-- attributes each document declares (x-entityapi search), indexed by the
-- database. storage.SearchColumns lists the same columns, and
-- TestSearchIndexesFollowTheDocuments holds the documents, that list and
-- this schema in step.
--
-- Both databases index one text per record, the columns in order with a
-- space between them, and split it into the same words: runs of letters
-- and digits, case folded, accents kept (no stemming, no stop words:
-- records hold names in many languages), so that a search answers the same
-- records on both.
--
-- PostgreSQL: a tsvector column the database keeps, with the 'simple'
-- text-search configuration, and a GIN index. Punctuation is turned into
-- spaces first: PostgreSQL's parser would keep "ACME-001" or
-- "jane.smith@acme.example" whole, where the query reads their words.
--
-- SQLite: a contentless FTS5 table of the same text, keyed by the record's
-- id and kept by triggers.
{{if .Postgres}}
ALTER TABLE accounts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name, '') || ' ' || coalesce(external_id, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX accounts_search_vector_idx ON accounts USING GIN (search_vector);

--bun:split

ALTER TABLE contacts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(primary_email, '') || ' ' || coalesce(external_id, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX contacts_search_vector_idx ON contacts USING GIN (search_vector);

--bun:split

ALTER TABLE users ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(username, '') || ' ' || coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX users_search_vector_idx ON users USING GIN (search_vector);

--bun:split

ALTER TABLE businessunits ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name, '') || ' ' || coalesce(email, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX businessunits_search_vector_idx ON businessunits USING GIN (search_vector);
{{else}}
CREATE VIRTUAL TABLE accounts_search USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER accounts_search_insert AFTER INSERT ON accounts BEGIN
    INSERT INTO accounts_search (rowid, body) VALUES (new.id, coalesce(new.name, '') || ' ' || coalesce(new.external_id, ''));
END;

--bun:split

CREATE TRIGGER accounts_search_delete AFTER DELETE ON accounts BEGIN
    INSERT INTO accounts_search (accounts_search, rowid, body) VALUES ('delete', old.id, coalesce(old.name, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER accounts_search_update AFTER UPDATE OF name, external_id ON accounts BEGIN
    INSERT INTO accounts_search (accounts_search, rowid, body) VALUES ('delete', old.id, coalesce(old.name, '') || ' ' || coalesce(old.external_id, ''));
    INSERT INTO accounts_search (rowid, body) VALUES (new.id, coalesce(new.name, '') || ' ' || coalesce(new.external_id, ''));
END;

--bun:split

INSERT INTO accounts_search (rowid, body) SELECT id, coalesce(name, '') || ' ' || coalesce(external_id, '') FROM accounts;

--bun:split

CREATE VIRTUAL TABLE contacts_search USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER contacts_search_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO contacts_search (rowid, body) VALUES (new.id, coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '') || ' ' || coalesce(new.primary_email, '') || ' ' || coalesce(new.external_id, ''));
END;

--bun:split

CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts BEGIN
    INSERT INTO contacts_search (contacts_search, rowid, body) VALUES ('delete', old.id, coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, '') || ' ' || coalesce(old.primary_email, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER contacts_search_update AFTER UPDATE OF first_name, last_name, primary_email, external_id ON contacts BEGIN
    INSERT INTO contacts_search (contacts_search, rowid, body) VALUES ('delete', old.id, coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, '') || ' ' || coalesce(old.primary_email, '') || ' ' || coalesce(old.external_id, ''));
    INSERT INTO contacts_search (rowid, body) VALUES (new.id, coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, '') || ' ' || coalesce(new.primary_email, '') || ' ' || coalesce(new.external_id, ''));
END;

--bun:split

INSERT INTO contacts_search (rowid, body) SELECT id, coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(primary_email, '') || ' ' || coalesce(external_id, '') FROM contacts;

--bun:split

CREATE VIRTUAL TABLE users_search USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_search (rowid, body) VALUES (new.id, coalesce(new.username, '') || ' ' || coalesce(new.email, '') || ' ' || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_search (users_search, rowid, body) VALUES ('delete', old.id, coalesce(old.username, '') || ' ' || coalesce(old.email, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_update AFTER UPDATE OF username, email, first_name, last_name ON users BEGIN
    INSERT INTO users_search (users_search, rowid, body) VALUES ('delete', old.id, coalesce(old.username, '') || ' ' || coalesce(old.email, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
    INSERT INTO users_search (rowid, body) VALUES (new.id, coalesce(new.username, '') || ' ' || coalesce(new.email, '') || ' ' || coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''));
END;

--bun:split

INSERT INTO users_search (rowid, body) SELECT id, coalesce(username, '') || ' ' || coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') FROM users;

--bun:split

CREATE VIRTUAL TABLE businessunits_search USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER businessunits_search_insert AFTER INSERT ON businessunits BEGIN
    INSERT INTO businessunits_search (rowid, body) VALUES (new.id, coalesce(new.name, '') || ' ' || coalesce(new.email, ''));
END;

--bun:split

CREATE TRIGGER businessunits_search_delete AFTER DELETE ON businessunits BEGIN
    INSERT INTO businessunits_search (businessunits_search, rowid, body) VALUES ('delete', old.id, coalesce(old.name, '') || ' ' || coalesce(old.email, ''));
END;

--bun:split

CREATE TRIGGER businessunits_search_update AFTER UPDATE OF name, email ON businessunits BEGIN
    INSERT INTO businessunits_search (businessunits_search, rowid, body) VALUES ('delete', old.id, coalesce(old.name, '') || ' ' || coalesce(old.email, ''));
    INSERT INTO businessunits_search (rowid, body) VALUES (new.id, coalesce(new.name, '') || ' ' || coalesce(new.email, ''));
END;

--bun:split

INSERT INTO businessunits_search (rowid, body) SELECT id, coalesce(name, '') || ' ' || coalesce(email, '') FROM businessunits;
{{end}}
