package server

import "testing"

// TestSanitizeSQL: no literal of a statement's text reaches a trace; the
// statement's shape does.
func TestSanitizeSQL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`SELECT "id" FROM "accounts" WHERE "id" = $1`, `SELECT "id" FROM "accounts" WHERE "id" = $1`},
		{`INSERT INTO "signing_keys" ("kid", "pem") VALUES ('k1', '-----BEGIN PRIVATE KEY-----')`,
			`INSERT INTO "signing_keys" ("kid", "pem") VALUES (?, ?)`},
		{`UPDATE "users" SET "name" = 'O''Brien' WHERE id = 7`, `UPDATE "users" SET "name" = ? WHERE id = 7`},
		{`SELECT coalesce(x, '[]'), ''`, `SELECT coalesce(x, ?), ?`},
		{`SELECT 'unterminated`, `SELECT ?`},
		{`SELECT '\x00ff'::bytea`, `SELECT ?::bytea`},
	} {
		if got := sanitizeSQL(tc.in); got != tc.want {
			t.Errorf("sanitizeSQL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSQLOperation(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"SELECT 1": "SELECT", "  insert into x": "INSERT", "(SELECT 1) UNION (SELECT 2)": "SELECT",
		"WITH a AS (SELECT 1) SELECT * FROM a": "WITH", "BEGIN": "BEGIN", "": "SQL", "?": "SQL",
	} {
		if got := sqlOperation(in); got != want {
			t.Errorf("sqlOperation(%q) = %q, want %q", in, got, want)
		}
	}
}
