-- SQLite's full-text index written once per transaction (docs/decisions.md
-- §20): migration 0017's triggers wrote each record's words into its FTS5
-- table in the statement that wrote the record, and FTS5 writes what it
-- holds in memory to disk at every statement of a transaction that has
-- written it (each statement opens a savepoint, and FTS5 flushes there): a
-- batch of one UPDATE per record made one index segment per record, and
-- 1,000,000 updates took 15 times as long as without the index.
--
-- Now the update and delete triggers only note which records changed
-- (search_pending: the table, the key and the text the index holds for the
-- record, which FTS5's contentless 'delete' needs), and one statement,
-- DELETE FROM search_pending, writes the index from the notes: the
-- triggers of search_pending remove each note's old text from the index
-- and add the record's text now, all in that one statement, so that FTS5
-- writes its segments once. The store sends it before each write
-- transaction commits, and after a single write that commits alone
-- (storage/searchpending.go), so that the records are in the index when
-- their write is done, whatever its size. A note keeps the first old text
-- of a record (INSERT OR IGNORE): the text the index holds. The insert
-- triggers still write the index themselves: creates come many rows to a
-- statement (a batch's INSERT of a chunk), which FTS5 writes once, and a
-- record created and then changed in one transaction is noted with the
-- text its insert put in the index. Keys are never reused (AUTOINCREMENT),
-- so a note never meets another record of its key.
--
-- Countries and regions (0018) keep their triggers: reference data,
-- written in migrations.
{{if not .Postgres}}
CREATE TABLE search_pending (
    table_name TEXT NOT NULL,
    k INTEGER NOT NULL,
    old_body TEXT NULL,
    PRIMARY KEY (table_name, k)
) WITHOUT ROWID;

--bun:split

DROP TRIGGER accounts_search_update;

--bun:split

DROP TRIGGER accounts_search_delete;

--bun:split

CREATE TRIGGER accounts_search_update AFTER UPDATE OF name, external_id ON accounts WHEN old.name IS NOT new.name OR old.external_id IS NOT new.external_id BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('accounts', old.id, coalesce(old.name, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER accounts_search_delete AFTER DELETE ON accounts BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('accounts', old.id, coalesce(old.name, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER accounts_search_write AFTER DELETE ON search_pending WHEN old.table_name = 'accounts' BEGIN
    INSERT INTO accounts_search (accounts_search, rowid, body) SELECT 'delete', old.k, old.old_body WHERE old.old_body IS NOT NULL;
    INSERT INTO accounts_search (rowid, body) SELECT id, coalesce(name, '') || ' ' || coalesce(external_id, '') FROM accounts WHERE id = old.k;
END;

--bun:split

DROP TRIGGER contacts_search_update;

--bun:split

DROP TRIGGER contacts_search_delete;

--bun:split

CREATE TRIGGER contacts_search_update AFTER UPDATE OF first_name, last_name, primary_email, external_id ON contacts WHEN old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name OR old.primary_email IS NOT new.primary_email OR old.external_id IS NOT new.external_id BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('contacts', old.id, coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, '') || ' ' || coalesce(old.primary_email, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('contacts', old.id, coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, '') || ' ' || coalesce(old.primary_email, '') || ' ' || coalesce(old.external_id, ''));
END;

--bun:split

CREATE TRIGGER contacts_search_write AFTER DELETE ON search_pending WHEN old.table_name = 'contacts' BEGIN
    INSERT INTO contacts_search (contacts_search, rowid, body) SELECT 'delete', old.k, old.old_body WHERE old.old_body IS NOT NULL;
    INSERT INTO contacts_search (rowid, body) SELECT id, coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(primary_email, '') || ' ' || coalesce(external_id, '') FROM contacts WHERE id = old.k;
END;

--bun:split

DROP TRIGGER users_search_update;

--bun:split

DROP TRIGGER users_search_delete;

--bun:split

CREATE TRIGGER users_search_update AFTER UPDATE OF username, email, first_name, last_name ON users WHEN old.username IS NOT new.username OR old.email IS NOT new.email OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('users', old.id, coalesce(old.username, '') || ' ' || coalesce(old.email, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('users', old.id, coalesce(old.username, '') || ' ' || coalesce(old.email, '') || ' ' || coalesce(old.first_name, '') || ' ' || coalesce(old.last_name, ''));
END;

--bun:split

CREATE TRIGGER users_search_write AFTER DELETE ON search_pending WHEN old.table_name = 'users' BEGIN
    INSERT INTO users_search (users_search, rowid, body) SELECT 'delete', old.k, old.old_body WHERE old.old_body IS NOT NULL;
    INSERT INTO users_search (rowid, body) SELECT id, coalesce(username, '') || ' ' || coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') FROM users WHERE id = old.k;
END;

--bun:split

DROP TRIGGER businessunits_search_update;

--bun:split

DROP TRIGGER businessunits_search_delete;

--bun:split

CREATE TRIGGER businessunits_search_update AFTER UPDATE OF name, email ON businessunits WHEN old.name IS NOT new.name OR old.email IS NOT new.email BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('businessunits', old.id, coalesce(old.name, '') || ' ' || coalesce(old.email, ''));
END;

--bun:split

CREATE TRIGGER businessunits_search_delete AFTER DELETE ON businessunits BEGIN
    INSERT OR IGNORE INTO search_pending (table_name, k, old_body) VALUES ('businessunits', old.id, coalesce(old.name, '') || ' ' || coalesce(old.email, ''));
END;

--bun:split

CREATE TRIGGER businessunits_search_write AFTER DELETE ON search_pending WHEN old.table_name = 'businessunits' BEGIN
    INSERT INTO businessunits_search (businessunits_search, rowid, body) SELECT 'delete', old.k, old.old_body WHERE old.old_body IS NOT NULL;
    INSERT INTO businessunits_search (rowid, body) SELECT id, coalesce(name, '') || ' ' || coalesce(email, '') FROM businessunits WHERE id = old.k;
END;
{{end}}
