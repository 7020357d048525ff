-- Indexes that let the pages the API reads most come straight from an index
-- in order (issue 16). A page of a scoped table is ordered by its key within
-- an organization; with only (organization_id, name)-style indexes SQLite
-- read every row of the organization and sorted them to return 50. The
-- accounts of a page of contacts (include=accounts) are looked up by
-- contact_id: with (contact_id, account_id) the index alone answers, in the
-- order the linkage wants, and it replaces the index on contact_id alone.

CREATE INDEX contacts_organization_id_id_idx ON contacts (organization_id, id);

--bun:split

CREATE INDEX accounts_organization_id_id_idx ON accounts (organization_id, id);

--bun:split

CREATE INDEX account_contacts_contact_id_account_id_idx ON account_contacts (contact_id, account_id);

--bun:split

DROP INDEX account_contacts_contact_id_idx;
