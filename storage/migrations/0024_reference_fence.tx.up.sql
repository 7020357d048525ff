-- The reference fence (issue 34; docs/answers.md, "Freshness on
-- PostgreSQL"): a transaction that changes reference data waits, before it
-- can commit, until no process may still trust what it read before.
--
-- A process that keeps answers holds the advisory lock 734190034 shared on
-- a connection of its own, and trusts the generation it read after taking
-- it, without reading it again for each request, until 250 ms after it
-- asked for the lock (storage.referenceLease: the two figures here and there
-- are one; TestReferenceFenceMatchesTheLease reads this function). Every
-- 50 ms it lets go and takes the lock again.
--
-- The first change to a reference table in a transaction takes the lock
-- exclusive (it waits for every holder to let go, and holds it until the
-- transaction ends, so no process takes it back before the change is
-- visible), then waits 250 ms more: a process whose connection was cut
-- holds no lock, but may still trust its reading until its 250 ms are out.
-- Reference data changes by migration or by an operator: the wait, at most
-- 300 ms per transaction, is paid there and not by the reads.
--
-- SQLite needs none: its processes see every commit in shared memory
-- (storage/dialect/sqlite/commitmark.go).
{{if .Postgres}}
CREATE OR REPLACE FUNCTION entityapi_reference_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('entityapi.reference_fenced', true) IS DISTINCT FROM 'on' THEN
        PERFORM pg_advisory_xact_lock(734190034);
        PERFORM pg_sleep(0.25);
        PERFORM set_config('entityapi.reference_fenced', 'on', true);
    END IF;
    UPDATE reference_generations SET generation = generation + 1 WHERE table_name = TG_TABLE_NAME;
    RETURN NULL;
END
$$;
{{else}}
SELECT 1;
{{end}}
