package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestBulkInsertsAudited: SQLite's bulk connection has no audit trigger on
// inserts (bulkconn.go); every insert made on it writes the audit row the
// trigger would have written: the same organization, action, fields and
// actor, for a table keyed by the database (a run of keys) and one keyed by
// the client, with an organization column and without, with a date and
// JSON fields. Each path (InsertMany, Insert, InsertRow in a bulk
// transaction, Insert making its own) is compared with the trigger's audit
// row of the same content. On PostgreSQL the bulk Conn is the store's, and
// the audit triggers write every row.
func TestBulkInsertsAudited(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := storage.WithActor(context.Background(), storage.Actor{Org: 1, Client: "bulk-audit", User: 1, Request: "req-bulk"})
		birthday := time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)
		tables := []struct {
			name string
			// row is the content every path inserts; key gives a row of a
			// client-keyed table its own key (nil: the database's).
			row func() storage.Row
			key func(i int) storage.Row
		}{
			{"accounts", func() storage.Row { return storage.Row{"name": "Audited"} }, nil},
			{"contacts", func() storage.Row {
				return storage.Row{"first_name": "Ada", "last_name": "Lovelace", "birthday": birthday,
					"emails": json.RawMessage(`[{"email":"ada@example.org"}]`)}
			}, nil},
			{"countries", func() storage.Row {
				return storage.Row{"iso3": "ZZZ", "name_en": "Audited", "name_de": "Geprüft", "name_fr": "Audité", "name_es": "Auditado"}
			}, func(i int) storage.Row { return storage.Row{"code": fmt.Sprintf("q%c", 'a'+i)} }},
			{"weightunits", func() storage.Row {
				return storage.Row{"conversion_rates": json.RawMessage(`{"kg":1}`)}
			}, func(i int) storage.Row { return storage.Row{"code": fmt.Sprintf("audited-%d", i)} }},
		}
		for _, tc := range tables {
			t.Run(tc.name, func(t *testing.T) {
				table := storagetest.Table(t, s, tc.name)
				n := 0
				next := func() storage.Row {
					row := tc.row()
					if tc.key != nil {
						for k, v := range tc.key(n) {
							row[k] = v
						}
					}
					n++
					return row
				}
				var first any
				err := s.Tx(ctx, func(c *storage.Conn) error { // the trigger's
					row, err := c.InsertRow(ctx, table, 1, next())
					first = row[table.Key]
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				want := readAudit(t, s, tc.name, first)
				if want.rows != 1 || want.fields == "[]" {
					t.Fatalf("the trigger's audit rows: %+v, want one naming a field", want)
				}
				var keys []any
				bulk := s.Bulk()
				paths := []struct {
					name  string
					write func() error
				}{
					{"InsertMany", func() error {
						return bulk.Tx(ctx, func(c *storage.Conn) error {
							k, err := c.InsertMany(ctx, table, 1, []storage.Row{next(), next(), next()})
							keys = append(keys, k...)
							return err
						})
					}},
					{"Insert in a transaction", func() error {
						return bulk.Tx(ctx, func(c *storage.Conn) error {
							k, err := c.Insert(ctx, table, 1, next())
							keys = append(keys, k)
							return err
						})
					}},
					{"InsertRow in a transaction", func() error {
						return bulk.Tx(ctx, func(c *storage.Conn) error {
							row, err := c.InsertRow(ctx, table, 1, next())
							keys = append(keys, row[table.Key])
							return err
						})
					}},
					{"Insert alone", func() error {
						k, err := bulk.Insert(ctx, table, 1, next())
						keys = append(keys, k)
						return err
					}},
				}
				for _, p := range paths {
					keys = keys[:0]
					if err := p.write(); err != nil {
						t.Fatalf("%s: %v", p.name, err)
					}
					for _, k := range keys {
						if got := readAudit(t, s, tc.name, k); got != want {
							t.Errorf("%s: the audit row of %v is %+v, want the trigger's %+v", p.name, k, got, want)
						}
					}
				}
			})
		}
		t.Run("more keys than one statement names", func(t *testing.T) {
			// A client-keyed table's keys go IN lists of up to 500: 1,201
			// rows take three statements.
			units := storagetest.Table(t, s, "weightunits")
			rows := make([]storage.Row, 1201)
			for i := range rows {
				rows[i] = storage.Row{"code": fmt.Sprintf("many-%04d", i), "conversion_rates": json.RawMessage(`{"kg":1}`)}
			}
			if err := s.Bulk().Tx(ctx, func(c *storage.Conn) error {
				_, err := c.InsertMany(ctx, units, 1, rows)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := s.DB().QueryRowContext(context.Background(), "SELECT count(*) FROM audits WHERE resource_type = 'weightunits' "+
				"AND resource_id LIKE 'many-%' AND action = 'create' AND request_id = 'req-bulk'").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(rows) {
				t.Errorf("%d audit rows for %d created records", n, len(rows))
			}
		})
	})
}

// auditOf is what an audit row says, but its record's id and its time.
type auditOf struct {
	org                   int64
	action, fields        string
	client, user, request string
	rows                  int
}

// readAudit reads the audit rows of one record of typ (its type is its
// table's name here), which the test expects to be one.
func readAudit(t *testing.T, s *storage.Store, typ string, id any) auditOf {
	t.Helper()
	var a auditOf
	rows, err := s.DB().QueryContext(context.Background(),
		"SELECT organization_id, action, fields, coalesce(client_id, ''), coalesce(CAST(user_id AS TEXT), ''), coalesce(request_id, '') "+
			"FROM audits WHERE resource_type = ? AND resource_id = ?", typ, fmt.Sprint(id))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		a.rows++
		if err := rows.Scan(&a.org, &a.action, &a.fields, &a.client, &a.user, &a.request); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return a
}
