-- The storefront's reference data (docs/decisions.md §10): the localizations that
-- X-Localization-ID selects (their ids are fixed: clients send them) and the
-- ISO 4217 currencies that X-Currency may name; which of them are enabled is
-- the server's configuration, not the table's. Currency rows are loaded by
-- the Go step of this migration (migrate.go) from storage/isodata.

CREATE TABLE localizations (
    id BIGINT NOT NULL PRIMARY KEY,
    title TEXT NOT NULL,
    language_code TEXT NOT NULL,
    formatting_code TEXT NOT NULL UNIQUE
);

--bun:split

INSERT INTO localizations (id, title, language_code, formatting_code) VALUES
    (1, 'English (United States)', 'en', 'en_US'),
    (2, 'German (Germany)', 'de', 'de_DE'),
    (3, 'French (France)', 'fr', 'fr_FR'),
    (4, 'Spanish (Spain)', 'es', 'es_ES');

--bun:split

CREATE TABLE currencies (
    code TEXT NOT NULL PRIMARY KEY,
    name TEXT NOT NULL,
    symbol TEXT NOT NULL
);
