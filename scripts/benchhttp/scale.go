package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// -scale grows each service's database before the measurements, the way
// issue 32 sizes its search and related-field rows: n more accounts and 4n
// more contacts in the seeded organization, written by SQL (through the
// API they would take longer than the measurements). Each grown contact is
// in one grown account and owned by one of the seeded users in turn (so
// the related target's owner owns a tenth of them); one in a thousand is
// a Smith (the search target's word), the others share a last name with a
// thousandth of them, so that a search of one last name matches about 0.1%
// of the contacts, as a common surname does. The database then gathers
// its statistics (ANALYZE), as it would after such growth.

// scaleStatements are the statements that grow a database by n accounts
// and 4n contacts, in dialect's SQL.
func scaleStatements(dialect string, n int) []string {
	series := func(count int, insert string) string {
		if dialect == "sqlite" {
			return "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < " + strconv.Itoa(count) + ") " + insert + " FROM g"
		}
		return insert + " FROM generate_series(1, " + strconv.Itoa(count) + ") AS g(i)"
	}
	firstUser := "(SELECT min(id) FROM users WHERE organization_id = " + strconv.Itoa(floorOrg) + " AND username LIKE 'crm%')"
	return []string{
		series(n, "INSERT INTO accounts (organization_id, name, owner_id) SELECT "+strconv.Itoa(floorOrg)+
			", 'Grown account ' || i, "+firstUser+" + i % "+strconv.Itoa(seedUsers)),
		series(4*n, "INSERT INTO contacts (organization_id, first_name, last_name, primary_email, owner_id) SELECT "+strconv.Itoa(floorOrg)+
			", 'Grown', CASE WHEN i % 1000 = 0 THEN 'Smith' ELSE 'Surname' || (i % 1000) END, 'grown' || i || '@example.com', "+
			firstUser+" + i % "+strconv.Itoa(seedUsers)),
		"INSERT INTO account_contacts (account_id, contact_id) " +
			"SELECT (SELECT min(id) FROM accounts WHERE name = 'Grown account 1') + c.id % " + strconv.Itoa(n) + ", c.id " +
			"FROM contacts AS c WHERE c.first_name = 'Grown'",
		"ANALYZE",
	}
}

// grow runs scaleStatements on the database of s.
func grow(ctx context.Context, s *service, n int) error {
	start := time.Now()
	stmts := scaleStatements(map[bool]string{true: "sqlite", false: "postgres"}[s.dbURL == ""], n)
	if s.dbURL != "" {
		conn, err := pgx.Connect(ctx, s.dbURL)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		for _, q := range stmts {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("grow: %w\n%s", err, q)
			}
		}
	} else {
		db, err := sql.Open("sqlite", "file:"+s.sqlitePath()+"?"+sqlitePragmas)
		if err != nil {
			return err
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("grow: %w\n%s", err, q)
			}
		}
	}
	if _, _, err := s.api(ctx, http.MethodPost, "/admin/api/weightunits",
		[]byte(`{"data":{"type":"weightunits","id":"grown"}}`), http.StatusCreated); err != nil {
		return fmt.Errorf("grow: the service's first write after it: %w", err)
	}
	progress("%s: grown by %d accounts and %d contacts in %s", s.name, n, 4*n, time.Since(start).Round(time.Second))
	return nil
}
