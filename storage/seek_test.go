package storage_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSeekWalksEveryOrder walks a table by Query.Seek, forward and
// backward, in orders that mix directions and meet NULLs and ties, and
// finds the rows of one Find of the whole order, each once.
func TestSeekWalksEveryOrder(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		rows := make([]storage.Row, 53)
		for i := range rows {
			rows[i] = storage.Row{"name": fmt.Sprintf("N%d", i%4),
				"created_at": time.Date(2026, 1, 1+i%5, 8, 0, i%7, 0, time.UTC)}
			if i%3 != 0 {
				rows[i]["external_id"] = fmt.Sprintf("E%02d", (i*11)%53)
			}
		}
		if _, err := s.InsertMany(ctx, accounts, 1, rows); err != nil {
			t.Fatal(err)
		}
		for _, orders := range [][]storage.Order{
			nil,
			{{Column: "id", Desc: true}},
			{{Column: "external_id"}},
			{{Column: "external_id", Desc: true}},
			{{Column: "name"}, {Column: "external_id", Desc: true}},
			{{Column: "name", Desc: true}, {Column: "external_id"}, {Column: "id", Desc: true}},
			{{Column: "created_at", Desc: true}, {Column: "external_id"}},
			{{Column: "created_at"}, {Column: "name", Desc: true}},
		} {
			t.Run(fmt.Sprint(orders), func(t *testing.T) {
				base := storage.Query{Table: accounts, Org: 1, OrderBy: orders,
					Where: []storage.Cond{{Column: "name", Op: storage.Neq, Values: []any{"N3"}}}}
				all, err := s.Find(ctx, base)
				if err != nil {
					t.Fatal(err)
				}
				if orders != nil && orders[0].Column == "created_at" && all[0]["created_at"] == all[len(all)-1]["created_at"] {
					t.Fatal("the rows were not given their times")
				}
				want := keysOf(all)
				order := storage.Ordering(accounts, orders)
				place := func(r storage.Row) []any {
					v := make([]any, len(order))
					for i, o := range order {
						v[i] = r[o.Column]
					}
					return v
				}
				for _, backward := range []bool{false, true} {
					var got []any
					var seek []any
					for pages := 0; ; pages++ {
						if pages > len(all) {
							t.Fatal("the walk does not end")
						}
						q := base
						q.Seek, q.Backward, q.Limit = seek, backward, 4
						page, err := s.Find(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						if len(page) == 0 {
							break
						}
						if backward {
							got = append(keysOf(page), got...)
							seek = place(page[0])
						} else {
							got = append(got, keysOf(page)...)
							seek = place(page[len(page)-1])
						}
					}
					if !slices.Equal(got, want) {
						t.Errorf("backward %v: %v\nwant %v", backward, got, want)
					}
				}
			})
		}
	})
}

func keysOf(rows []storage.Row) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r["id"]
	}
	return out
}

// TestSeekReadsByIndex: a page deep in a large table, read by Seek, sends
// no OFFSET, and the database finds its place through the index on
// (organization_id, id) rather than reading the rows before it.
func TestSeekReadsByIndex(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		contacts := storagetest.Table(t, s, "contacts")
		keys, err := s.InsertMany(ctx, contacts, 1, make([]storage.Row, 20000))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		log := &statementLog{}
		s.AddStatementHook(log)
		deep := storage.Query{Table: contacts, Org: 1, Limit: 26, Seek: []any{keys[19000]}}
		var page []storage.Row
		texts := log.during(func() {
			if page, err = s.Find(ctx, deep); err != nil {
				t.Error(err)
			}
		})
		if len(page) != 26 || page[0]["id"] != keys[19001] {
			t.Fatalf("the page after row 19,000: %d rows from %v", len(page), page[0]["id"])
		}
		if len(texts) != 1 || strings.Contains(strings.ToUpper(texts[0]), "OFFSET") || !strings.Contains(texts[0], "LIMIT") {
			t.Errorf("the statements of a deep page: %q, want one with LIMIT and no OFFSET", texts)
		}
		back := deep
		back.Backward = true
		for _, q := range []storage.Query{deep, back} {
			plan, err := s.ExplainFind(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if s.Dialect() == "sqlite" {
				if !strings.Contains(plan, "contacts_organization_id_id_idx (organization_id=? AND id") || strings.Contains(plan, "TEMP B-TREE") {
					t.Errorf("backward %v: the page is not sought through the index:\n%s", q.Backward, plan)
				}
				continue
			}
			// The place is a condition of the index scan (PostgreSQL may
			// still sort the few rows it finds, by its statistics). Once
			// Optimize has analyzed the table (it does once the rows are
			// counted), the primary key with a filter on the organization
			// serves as well as (organization_id, id): every row is in it.
			if !regexp.MustCompile(`Index Cond: .*\(id [<>] `).MatchString(plan) || strings.Contains(plan, "Seq Scan") {
				t.Errorf("backward %v: the page is not sought through an index:\n%s", q.Backward, plan)
			}
		}
	})
}
