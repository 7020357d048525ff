-- Users and their roles, business units, contacts and the account-contact
-- links; accounts gain an owner, a default contact and a referring account.
-- Placeholders and split markers as in 0001.
--
-- References to rows that may be deleted are ON DELETE SET NULL (to-one) or
-- ON DELETE CASCADE (join tables), so deleting a user, unit, contact or account
-- never fails because something points at it. Organizations are never
-- deleted, so references to them have no action. Every such foreign key
-- column is indexed: the database looks it up on each delete of the referred
-- row, and the inverse to-many relationships are read through it.

CREATE TABLE userroles (
    code TEXT NOT NULL PRIMARY KEY,
    label TEXT NOT NULL
);

--bun:split

INSERT INTO userroles (code, label) VALUES
    ('ROLE_ADMINISTRATOR', 'Administrator'),
    ('ROLE_MANAGER', 'Manager'),
    ('ROLE_USER', 'User');

--bun:split

CREATE TABLE businessunits (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    name TEXT NOT NULL,
    phone TEXT NULL,
    website TEXT NULL,
    email TEXT NULL,
    fax TEXT NULL,
    owner_id BIGINT NULL REFERENCES businessunits (id) ON DELETE SET NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);

--bun:split

CREATE INDEX businessunits_organization_id_name_idx ON businessunits (organization_id, name);

--bun:split

CREATE INDEX businessunits_owner_id_idx ON businessunits (owner_id);

--bun:split

CREATE TABLE users (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    username TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    name_prefix TEXT NULL,
    middle_name TEXT NULL,
    name_suffix TEXT NULL,
    phone TEXT NULL,
    title TEXT NULL,
    google_id TEXT NULL,
    birthday DATE NULL,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    emails {{.JSON}} NULL,
    external_id TEXT NULL,
    last_login {{.Timestamp}} NULL,
    login_count BIGINT NOT NULL DEFAULT 0,
    password_hash TEXT NULL,
    owner_id BIGINT NULL REFERENCES businessunits (id) ON DELETE SET NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    UNIQUE (organization_id, external_id)
);

--bun:split

CREATE INDEX users_organization_id_last_name_idx ON users (organization_id, last_name);

--bun:split

CREATE INDEX users_owner_id_idx ON users (owner_id);

--bun:split

CREATE TABLE user_userroles (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role_code TEXT NOT NULL REFERENCES userroles (code),
    PRIMARY KEY (user_id, role_code)
);

--bun:split

CREATE INDEX user_userroles_role_code_idx ON user_userroles (role_code);

--bun:split

CREATE TABLE contacts (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    name_prefix TEXT NULL,
    first_name TEXT NULL,
    middle_name TEXT NULL,
    last_name TEXT NULL,
    name_suffix TEXT NULL,
    gender TEXT NULL,
    birthday DATE NULL,
    description TEXT NULL,
    job_title TEXT NULL,
    emails {{.JSON}} NULL,
    phones {{.JSON}} NULL,
    primary_email TEXT NULL,
    primary_phone TEXT NULL,
    external_id TEXT NULL,
    owner_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    assigned_to_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    reports_to_id BIGINT NULL REFERENCES contacts (id) ON DELETE SET NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    UNIQUE (organization_id, external_id)
);

--bun:split

CREATE INDEX contacts_organization_id_last_name_idx ON contacts (organization_id, last_name);

--bun:split

CREATE INDEX contacts_organization_id_primary_email_idx ON contacts (organization_id, primary_email);

--bun:split

CREATE INDEX contacts_owner_id_idx ON contacts (owner_id);

--bun:split

CREATE INDEX contacts_assigned_to_id_idx ON contacts (assigned_to_id);

--bun:split

CREATE INDEX contacts_reports_to_id_idx ON contacts (reports_to_id);

--bun:split

CREATE TABLE account_contacts (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    PRIMARY KEY (account_id, contact_id)
);

--bun:split

CREATE INDEX account_contacts_contact_id_idx ON account_contacts (contact_id);

--bun:split

-- SQLite adds a column with REFERENCES only when its default is NULL, as here.
ALTER TABLE accounts ADD COLUMN owner_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL;

--bun:split

ALTER TABLE accounts ADD COLUMN default_contact_id BIGINT NULL REFERENCES contacts (id) ON DELETE SET NULL;

--bun:split

ALTER TABLE accounts ADD COLUMN referred_by_id BIGINT NULL REFERENCES accounts (id) ON DELETE SET NULL;

--bun:split

CREATE INDEX accounts_owner_id_idx ON accounts (owner_id);

--bun:split

CREATE INDEX accounts_default_contact_id_idx ON accounts (default_contact_id);

--bun:split

CREATE INDEX accounts_referred_by_id_idx ON accounts (referred_by_id);

--bun:split

-- A country's regions in code order straight from the index, without reading
-- the table. Its first column serves everything the single-column index of
-- 0001 served (the foreign key to countries included), so that one goes.
CREATE INDEX regions_country_code_code_idx ON regions (country_code, code);

--bun:split

DROP INDEX IF EXISTS regions_country_code_idx;
