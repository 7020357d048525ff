-- The first schema: organizations (with the default "Main"), ISO countries and
-- regions (rows loaded by the Go step of this migration, see migrate.go),
-- weight units, tax jurisdictions and accounts. One file serves both
-- databases: the Serial, Timestamp, JSON and Now placeholders are filled in per
-- dialect (sqlTypes in migrate.go). Statements are separated by bun's split marker.

CREATE TABLE organizations (
    id {{.Serial}},
    name TEXT NOT NULL UNIQUE,
    description TEXT NULL,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);

--bun:split

-- Inserted without an id so that it gets 1 from the sequence, which then
-- continues at 2 on both databases.
INSERT INTO organizations (name) VALUES ('Main');

--bun:split

CREATE TABLE countries (
    code TEXT NOT NULL PRIMARY KEY,
    iso3 TEXT NOT NULL,
    name_en TEXT NOT NULL,
    name_de TEXT NOT NULL,
    name_fr TEXT NOT NULL,
    name_es TEXT NOT NULL
);

--bun:split

CREATE TABLE regions (
    code TEXT NOT NULL PRIMARY KEY,
    country_code TEXT NOT NULL REFERENCES countries (code),
    sub_code TEXT NOT NULL,
    name_en TEXT NOT NULL,
    name_de TEXT NOT NULL,
    name_fr TEXT NOT NULL,
    name_es TEXT NOT NULL
);

--bun:split

CREATE INDEX regions_country_code_idx ON regions (country_code);

--bun:split

CREATE TABLE weightunits (
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    code TEXT NOT NULL,
    conversion_rates {{.JSON}} NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    PRIMARY KEY (organization_id, code)
);

--bun:split

CREATE TABLE taxjurisdictions (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    code TEXT NOT NULL,
    description TEXT NULL,
    region_text TEXT NULL,
    zip_codes {{.JSON}} NULL,
    country_code TEXT NOT NULL REFERENCES countries (code),
    region_code TEXT NULL REFERENCES regions (code),
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    UNIQUE (organization_id, code)
);

--bun:split

CREATE INDEX taxjurisdictions_country_code_idx ON taxjurisdictions (country_code);

--bun:split

CREATE INDEX taxjurisdictions_region_code_idx ON taxjurisdictions (region_code);

--bun:split

CREATE TABLE accounts (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    name TEXT NOT NULL,
    external_id TEXT NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    UNIQUE (organization_id, external_id)
);

--bun:split

CREATE INDEX accounts_organization_id_name_idx ON accounts (organization_id, name);
