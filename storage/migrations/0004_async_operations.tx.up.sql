-- Asynchronous batch operations (docs/decisions.md §7): the operation, its staged
-- chunks and the errors of its items. Placeholders and split markers as in
-- 0001.
--
-- An operation is 'staging' while its request body streams in (no API shows
-- it), then 'new', 'running' and one of 'success', 'failed' or 'cancelled'.
-- A chunk keeps its items (a JSON array of {index, raw}, index zero-based
-- into the original request) until it is done; done is what makes a chunk
-- re-run after a crash a no-op. Items are TEXT, not JSON: they keep the bytes
-- the client sent (key order, duplicate keys, \u0000) for the pointers and
-- the validation of each item. Chunks and errors go with their operation
-- (ON DELETE CASCADE), which goes when the cleanup deletes it; a deleted
-- owner leaves the operation without one.

CREATE TABLE async_operations (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    owner_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    entity_type TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('staging', 'new', 'running', 'success', 'failed', 'cancelled')),
    chunk_count INTEGER NOT NULL DEFAULT 0,
    chunks_done INTEGER NOT NULL DEFAULT 0,
    read_count BIGINT NOT NULL DEFAULT 0,
    write_count BIGINT NOT NULL DEFAULT 0,
    error_count BIGINT NOT NULL DEFAULT 0,
    create_count BIGINT NOT NULL DEFAULT 0,
    update_count BIGINT NOT NULL DEFAULT 0,
    aggregate_ms BIGINT NOT NULL DEFAULT 0,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    started_at {{.Timestamp}} NULL,
    finished_at {{.Timestamp}} NULL
);

--bun:split

CREATE INDEX async_operations_organization_id_status_idx ON async_operations (organization_id, status);

--bun:split

-- Stale staging operations and the cleanup of finished ones.
CREATE INDEX async_operations_status_updated_at_idx ON async_operations (status, updated_at);

--bun:split

CREATE INDEX async_operations_owner_id_idx ON async_operations (owner_id);

--bun:split

CREATE TABLE async_operation_chunks (
    operation_id BIGINT NOT NULL REFERENCES async_operations (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    items TEXT NOT NULL,
    included TEXT NULL,
    done BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (operation_id, number)
);

--bun:split

CREATE TABLE async_operation_errors (
    operation_id BIGINT NOT NULL REFERENCES async_operations (id) ON DELETE CASCADE,
    chunk INTEGER NOT NULL,
    n INTEGER NOT NULL,
    status INTEGER NOT NULL,
    title TEXT NOT NULL,
    detail TEXT NULL,
    pointer TEXT NULL,
    property_path TEXT NULL,
    PRIMARY KEY (operation_id, chunk, n)
);
