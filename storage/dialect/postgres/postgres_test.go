package postgres

import (
	"errors"
	"fmt"
	"reflect"
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
	d := &DB{}
	if d.Name() != "postgres" || !d.Types().Postgres || d.Features().OneWriter || !d.Features().OwnTxConn {
		t.Errorf("Name %q, Types %+v, Features %+v", d.Name(), d.Types(), d.Features())
	}
}
