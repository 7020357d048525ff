-- Record versions for conditional requests (issue 18): every table of a
-- writable resource gets a counter that every change of the record
-- increments (storage/write.go), so that an ETag names one state of the
-- record and If-Match can refuse a write based on a stale read. Timestamps
-- are kept to the second and cannot tell two changes of one second apart.
-- Existing records start at version 1, as new ones do.

ALTER TABLE organizations ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE businessunits ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE users ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE accounts ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE contacts ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE weightunits ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

--bun:split

ALTER TABLE taxjurisdictions ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
