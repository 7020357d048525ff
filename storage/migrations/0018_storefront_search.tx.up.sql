-- Full-text search on the storefront (issue 32; docs/queries.md, "Search"):
-- countries and regions, by name and code, in each language their names
-- are kept in. A table whose searched attributes are localized
-- (x-localized) has an index per language: the default one (English, the
-- attributes' x-column) and one per other language, the language's name
-- in place of the English one. storage.SearchColumns lists them and
-- TestSearchIndexesFollowTheDocuments holds documents, list and schema in
-- step, as for migration 0017.
--
-- PostgreSQL: a generated tsvector column per language (search_vector,
-- search_vector_de, ...), built as 0017's are, each with a GIN index; a
-- --search-configuration other than simple rebuilds them at start.
--
-- SQLite: one FTS5 table per table, a column per language (body,
-- body_de, ...). These tables' keys are text, and the rowids of a table
-- without an integer key may change in a VACUUM, so the FTS5 table keeps
-- the key itself (column k, unindexed) and its text: the reference data is
-- small and seldom written.
{{if .Postgres}}ALTER TABLE countries ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_en, '') || ' ' || coalesce(iso3, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX countries_search_vector_idx ON countries USING GIN (search_vector);

--bun:split

ALTER TABLE countries ADD COLUMN search_vector_de tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_de, '') || ' ' || coalesce(iso3, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX countries_search_vector_de_idx ON countries USING GIN (search_vector_de);

--bun:split

ALTER TABLE countries ADD COLUMN search_vector_fr tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_fr, '') || ' ' || coalesce(iso3, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX countries_search_vector_fr_idx ON countries USING GIN (search_vector_fr);

--bun:split

ALTER TABLE countries ADD COLUMN search_vector_es tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_es, '') || ' ' || coalesce(iso3, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX countries_search_vector_es_idx ON countries USING GIN (search_vector_es);

--bun:split

ALTER TABLE regions ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_en, '') || ' ' || coalesce(sub_code, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX regions_search_vector_idx ON regions USING GIN (search_vector);

--bun:split

ALTER TABLE regions ADD COLUMN search_vector_de tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_de, '') || ' ' || coalesce(sub_code, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX regions_search_vector_de_idx ON regions USING GIN (search_vector_de);

--bun:split

ALTER TABLE regions ADD COLUMN search_vector_fr tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_fr, '') || ' ' || coalesce(sub_code, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX regions_search_vector_fr_idx ON regions USING GIN (search_vector_fr);

--bun:split

ALTER TABLE regions ADD COLUMN search_vector_es tsvector GENERATED ALWAYS AS
    (to_tsvector('simple'::regconfig, regexp_replace(coalesce(name_es, '') || ' ' || coalesce(sub_code, ''), '[[:punct:][:space:]]+', ' ', 'g'))) STORED;

--bun:split

CREATE INDEX regions_search_vector_es_idx ON regions USING GIN (search_vector_es);
{{else}}CREATE VIRTUAL TABLE countries_search USING fts5(k UNINDEXED, body, body_de, body_fr, body_es, tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER countries_search_insert AFTER INSERT ON countries BEGIN
    INSERT INTO countries_search (k, body, body_de, body_fr, body_es) VALUES (new.code, coalesce(new.name_en, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_de, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_fr, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_es, '') || ' ' || coalesce(new.iso3, ''));
END;

--bun:split

CREATE TRIGGER countries_search_delete AFTER DELETE ON countries BEGIN
    DELETE FROM countries_search WHERE k = old.code;
END;

--bun:split

CREATE TRIGGER countries_search_update AFTER UPDATE OF code, name_en, iso3, name_de, name_fr, name_es ON countries BEGIN
    DELETE FROM countries_search WHERE k = old.code;
    INSERT INTO countries_search (k, body, body_de, body_fr, body_es) VALUES (new.code, coalesce(new.name_en, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_de, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_fr, '') || ' ' || coalesce(new.iso3, ''), coalesce(new.name_es, '') || ' ' || coalesce(new.iso3, ''));
END;

--bun:split

INSERT INTO countries_search (k, body, body_de, body_fr, body_es) SELECT code, coalesce(name_en, '') || ' ' || coalesce(iso3, ''), coalesce(name_de, '') || ' ' || coalesce(iso3, ''), coalesce(name_fr, '') || ' ' || coalesce(iso3, ''), coalesce(name_es, '') || ' ' || coalesce(iso3, '') FROM countries;

--bun:split

CREATE VIRTUAL TABLE regions_search USING fts5(k UNINDEXED, body, body_de, body_fr, body_es, tokenize='unicode61 remove_diacritics 0');

--bun:split

CREATE TRIGGER regions_search_insert AFTER INSERT ON regions BEGIN
    INSERT INTO regions_search (k, body, body_de, body_fr, body_es) VALUES (new.code, coalesce(new.name_en, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_de, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_fr, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_es, '') || ' ' || coalesce(new.sub_code, ''));
END;

--bun:split

CREATE TRIGGER regions_search_delete AFTER DELETE ON regions BEGIN
    DELETE FROM regions_search WHERE k = old.code;
END;

--bun:split

CREATE TRIGGER regions_search_update AFTER UPDATE OF code, name_en, sub_code, name_de, name_fr, name_es ON regions BEGIN
    DELETE FROM regions_search WHERE k = old.code;
    INSERT INTO regions_search (k, body, body_de, body_fr, body_es) VALUES (new.code, coalesce(new.name_en, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_de, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_fr, '') || ' ' || coalesce(new.sub_code, ''), coalesce(new.name_es, '') || ' ' || coalesce(new.sub_code, ''));
END;

--bun:split

INSERT INTO regions_search (k, body, body_de, body_fr, body_es) SELECT code, coalesce(name_en, '') || ' ' || coalesce(sub_code, ''), coalesce(name_de, '') || ' ' || coalesce(sub_code, ''), coalesce(name_fr, '') || ' ' || coalesce(sub_code, ''), coalesce(name_es, '') || ' ' || coalesce(sub_code, '') FROM regions;
{{end}}
