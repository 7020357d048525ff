-- Reference generations (issue 34; docs/answers.md): a counter per table
-- of reference data, raised in the transaction of every change to the
-- table, whatever makes it: the API, a batch, a migration, an operator's
-- SQL. The answer cache of every process reads their sum before it serves
-- a kept answer (storage.Store.ReferenceGeneration), so that no answer is
-- served after a change it does not show has committed.
-- storage.ReferenceTables lists the same tables, and
-- TestReferenceTablesFollowTheDocuments holds the documents, that list and
-- this schema in step.
--
-- PostgreSQL: a statement trigger per table (one raise per statement, the
-- batch's COPY included), which takes the counter's row lock until the
-- change commits. SQLite has row triggers only: one raise per row, under
-- the one writer's lock.
CREATE TABLE reference_generations (
    table_name TEXT PRIMARY KEY,
    generation BIGINT NOT NULL DEFAULT 0
);

--bun:split

INSERT INTO reference_generations (table_name) VALUES ('countries'), ('currencies'), ('localizations'), ('regions'), ('userroles');
{{if .Postgres}}
--bun:split

CREATE FUNCTION entityapi_reference_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = TG_TABLE_NAME;
    RETURN NULL;
END
$$;

--bun:split

CREATE TRIGGER countries_reference_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON countries
    FOR EACH STATEMENT EXECUTE FUNCTION entityapi_reference_changed();

--bun:split

CREATE TRIGGER currencies_reference_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON currencies
    FOR EACH STATEMENT EXECUTE FUNCTION entityapi_reference_changed();

--bun:split

CREATE TRIGGER localizations_reference_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON localizations
    FOR EACH STATEMENT EXECUTE FUNCTION entityapi_reference_changed();

--bun:split

CREATE TRIGGER regions_reference_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON regions
    FOR EACH STATEMENT EXECUTE FUNCTION entityapi_reference_changed();

--bun:split

CREATE TRIGGER userroles_reference_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON userroles
    FOR EACH STATEMENT EXECUTE FUNCTION entityapi_reference_changed();
{{else}}
--bun:split

CREATE TRIGGER countries_reference_insert AFTER INSERT ON countries BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'countries';
END;

--bun:split

CREATE TRIGGER countries_reference_update AFTER UPDATE ON countries BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'countries';
END;

--bun:split

CREATE TRIGGER countries_reference_delete AFTER DELETE ON countries BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'countries';
END;

--bun:split

CREATE TRIGGER currencies_reference_insert AFTER INSERT ON currencies BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'currencies';
END;

--bun:split

CREATE TRIGGER currencies_reference_update AFTER UPDATE ON currencies BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'currencies';
END;

--bun:split

CREATE TRIGGER currencies_reference_delete AFTER DELETE ON currencies BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'currencies';
END;

--bun:split

CREATE TRIGGER localizations_reference_insert AFTER INSERT ON localizations BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'localizations';
END;

--bun:split

CREATE TRIGGER localizations_reference_update AFTER UPDATE ON localizations BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'localizations';
END;

--bun:split

CREATE TRIGGER localizations_reference_delete AFTER DELETE ON localizations BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'localizations';
END;

--bun:split

CREATE TRIGGER regions_reference_insert AFTER INSERT ON regions BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'regions';
END;

--bun:split

CREATE TRIGGER regions_reference_update AFTER UPDATE ON regions BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'regions';
END;

--bun:split

CREATE TRIGGER regions_reference_delete AFTER DELETE ON regions BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'regions';
END;

--bun:split

CREATE TRIGGER userroles_reference_insert AFTER INSERT ON userroles BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'userroles';
END;

--bun:split

CREATE TRIGGER userroles_reference_update AFTER UPDATE ON userroles BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'userroles';
END;

--bun:split

CREATE TRIGGER userroles_reference_delete AFTER DELETE ON userroles BEGIN
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = 'userroles';
END;
{{end}}
