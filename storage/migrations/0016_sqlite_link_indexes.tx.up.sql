-- The indexes of the to-one links on SQLite cover only the rows that have a
-- link (issue 32: filters on related records' fields). SQLite's statistics
-- (ANALYZE, sqlite_stat1) give each index the average number of rows per
-- value, and count the rows without a link as one value: with 100,000
-- accounts of which 50 have an owner, accounts_owner_id_idx looked like
-- 14,000 rows per owner, and a filter on the owner's username walked every
-- account of the organization in key order instead of looking up the few
-- the owner has. An index WHERE the link IS NOT NULL counts only the linked
-- rows, and serves every lookup by a link value (owner_id = ?, IN (...)),
-- which implies it. PostgreSQL keeps the fraction of NULLs in its
-- statistics and needs no change.
{{if not .Postgres}}
DROP INDEX accounts_owner_id_idx;

--bun:split

CREATE INDEX accounts_owner_id_idx ON accounts (owner_id) WHERE owner_id IS NOT NULL;

--bun:split

DROP INDEX accounts_default_contact_id_idx;

--bun:split

CREATE INDEX accounts_default_contact_id_idx ON accounts (default_contact_id) WHERE default_contact_id IS NOT NULL;

--bun:split

DROP INDEX accounts_referred_by_id_idx;

--bun:split

CREATE INDEX accounts_referred_by_id_idx ON accounts (referred_by_id) WHERE referred_by_id IS NOT NULL;

--bun:split

DROP INDEX contacts_owner_id_idx;

--bun:split

CREATE INDEX contacts_owner_id_idx ON contacts (owner_id) WHERE owner_id IS NOT NULL;

--bun:split

DROP INDEX contacts_assigned_to_id_idx;

--bun:split

CREATE INDEX contacts_assigned_to_id_idx ON contacts (assigned_to_id) WHERE assigned_to_id IS NOT NULL;

--bun:split

DROP INDEX contacts_reports_to_id_idx;

--bun:split

CREATE INDEX contacts_reports_to_id_idx ON contacts (reports_to_id) WHERE reports_to_id IS NOT NULL;

--bun:split

DROP INDEX users_owner_id_idx;

--bun:split

CREATE INDEX users_owner_id_idx ON users (owner_id) WHERE owner_id IS NOT NULL;

--bun:split

DROP INDEX businessunits_owner_id_idx;

--bun:split

CREATE INDEX businessunits_owner_id_idx ON businessunits (owner_id) WHERE owner_id IS NOT NULL;
{{end}}
