package postgres

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnique(t *testing.T) {
	t.Parallel()
	d := &DB{}
	tests := []struct {
		name    string
		err     error
		table   string
		columns []string
		ok      bool
	}{
		{"detail names the columns", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505", TableName: "accounts",
			Detail: "Key (organization_id, external_id)=(1, A-1) already exists."}), "accounts", []string{"organization_id", " external_id"}, true},
		{"no detail, no constraint", &pgconn.PgError{Code: "23505", TableName: "accounts"}, "accounts", nil, true},
		{"a foreign key violation", &pgconn.PgError{Code: "23503"}, "", nil, false},
		{"not PostgreSQL's", errors.New("boom"), "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, cols, ok := d.Unique(tt.err)
			if table != tt.table || !reflect.DeepEqual(cols, tt.columns) || ok != tt.ok {
				t.Errorf("Unique = %q, %q, %v; want %q, %q, %v", table, cols, ok, tt.table, tt.columns, tt.ok)
			}
		})
	}
}

func TestForeignKey(t *testing.T) {
	t.Parallel()
	d := &DB{}
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("delete: %w", &pgconn.PgError{Code: "23503"}), true},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("boom"), false},
	}
	for _, tt := range tests {
		if got := d.ForeignKey(tt.err); got != tt.want {
			t.Errorf("ForeignKey(%v) = %v, want %v", tt.err, got, tt.want)
		}
		if d.Constraint(tt.err) {
			t.Errorf("Constraint(%v): a failed statement aborts PostgreSQL's transaction", tt.err)
		}
	}
}

func TestDollars(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                               "",
		"SELECT 1":                       "SELECT 1",
		"UPDATE w SET a = ? WHERE b = ?": "UPDATE w SET a = $1 WHERE b = $2",
	} {
		if got := dollars(in); got != want {
			t.Errorf("dollars(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for url, ok := range map[string]bool{
		"postgres://u@localhost:5432/db":           true,
		"postgres://u@localhost:5432/db?sslmode=x": false,
	} {
		if err := CheckURL(url); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", url, err)
		}
	}
}

func TestDescription(t *testing.T) {
	t.Parallel()
	d := &DB{features: features}
	if d.Name() != "postgres" || !d.Types().Postgres || d.Features().OneWriter || !d.Features().OwnTxConn {
		t.Errorf("Name %q, Types %+v, Features %+v", d.Name(), d.Types(), d.Features())
	}
}

// TestEventWith runs a write and the insert of its event as the store puts
// them together from eventWith's pieces, on PostgreSQL: the statement
// answers the written row, the event holds its key and version, and a
// delete's row count is its event's.
func TestEventWith(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	ctx := context.Background()
	for _, q := range []string{
		"ALTER TABLE " + schema + ".widgets ADD COLUMN version BIGINT",
		"CREATE TABLE " + schema + ".log (organization_id BIGINT, resource_type TEXT, resource_id TEXT, action TEXT, changed_attributes JSONB, changed_relationships JSONB, version BIGINT, client_id TEXT, user_id BIGINT, occurred_at TIMESTAMPTZ)",
	} {
		if _, err := d.DB().DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// marks numbers the ? of text as $1, $2..., quoting the identifiers
	// the store would quote in.
	marks := func(text string, idents map[int]string) string {
		var b strings.Builder
		n, param := 0, 0
		for _, r := range text {
			if r != '?' {
				b.WriteRune(r)
				continue
			}
			n++
			if id, ok := idents[n]; ok {
				b.WriteString(`"` + id + `"`)
				continue
			}
			param++
			b.WriteString("$" + strconv.Itoa(param))
		}
		return b.String()
	}
	w := eventWith
	columns := "organization_id, resource_type, resource_id, action, changed_attributes, changed_relationships, version, client_id, user_id, occurred_at"
	insert := w.Insert[0] + columns + w.Insert[1] + "w.version" + w.Insert[2]
	write := w.Write[0] + "INSERT INTO " + schema + ".widgets (id, org, code, version) VALUES (7, 1, 'a', 3) RETURNING id, version" +
		w.Write[1] + insert + w.Write[2]
	// Marks 1 (the events table) and 4 (w's key column) are identifiers.
	q := marks(write, map[int]string{1: "log", 4: "id"})
	q = strings.Replace(q, `"log"`, schema+".log", 1)
	var id, version int64
	if err := d.DB().DB.QueryRowContext(ctx, q, 1, "widgets", "create", `["code"]`, `[]`, "c", 5, "2026-01-02T03:04:05Z").Scan(&id, &version); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if id != 7 || version != 3 {
		t.Errorf("the write answered %d, %d; want its row 7, 3", id, version)
	}
	del := w.Delete[0] + "DELETE FROM " + schema + ".widgets WHERE id = 7 RETURNING id, version" + w.Delete[1] + insert
	q = strings.Replace(marks(del, map[int]string{1: "log", 4: "id"}), `"log"`, schema+".log", 1)
	res, err := d.DB().DB.ExecContext(ctx, q, 1, "widgets", "delete", nil, nil, nil, nil, "2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("the delete's row count is %d, want 1", n)
	}
	var events int
	var keys string
	if err := d.DB().DB.QueryRowContext(ctx, "SELECT count(*), string_agg(resource_id || ':' || action || ':' || version, ',' ORDER BY action) FROM "+schema+".log").Scan(&events, &keys); err != nil {
		t.Fatal(err)
	}
	if events != 2 || keys != "7:create:3,7:delete:3" {
		t.Errorf("events %d %q; want the create's and the delete's of row 7 at version 3", events, keys)
	}
}
