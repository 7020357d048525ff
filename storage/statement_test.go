package storage_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// statementLog is a StatementHook keeping the SQL of every statement.
type statementLog struct {
	mu    sync.Mutex
	texts []string
}

func (l *statementLog) BeforeStatement(ctx context.Context, query string) context.Context {
	l.mu.Lock()
	l.texts = append(l.texts, query)
	l.mu.Unlock()
	return ctx
}

func (l *statementLog) AfterStatement(context.Context, string, error) {}

// take returns the statements recorded since the last call.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.texts
	l.texts = nil
	return out
}

// during returns the statements fn sends.
func (l *statementLog) during(fn func()) []string {
	l.mu.Lock()
	l.texts = nil
	l.mu.Unlock()
	fn()
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.texts...)
}

// TestStatementsBindValues: the generic queries send values as parameters,
// so two queries of one shape send the same text, which holds no value, and
// the database prepares it once (issue 16: Bun wrote values into the text and
// every statement was planned or parsed anew). On PostgreSQL an IN list is
// one array parameter whatever its length. Every statement is counted.
func TestStatementsBindValues(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		log := &statementLog{}
		s.AddStatementHook(log)
		var keys []any
		for _, name := range []string{"needle-one", "needle-two", "needle-three"} {
			key, err := s.Insert(ctx, accounts, 1, storage.Row{"name": name})
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, key)
		}
		find := func(name string) []string {
			return log.during(func() {
				rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1,
					Where: []storage.Cond{{Column: "name", Op: storage.Eq, Values: []any{name}}}})
				if err != nil || len(rows) != 1 || rows[0]["name"] != name {
					t.Fatalf("find %q: %v %v", name, rows, err)
				}
			})
		}
		before := s.Statements()
		one, two := find("needle-one"), find("needle-two")
		if got := s.Statements() - before; got != 2 {
			t.Errorf("Statements() grew by %d over two finds, want 2", got)
		}
		if len(one) != 1 || len(two) != 1 || one[0] != two[0] {
			t.Fatalf("two finds of one shape sent\n%q\n%q\nwant one text", one, two)
		}
		if strings.Contains(one[0], "needle") {
			t.Errorf("the value is in the SQL text: %s", one[0])
		}
		if s.Dialect() == "sqlite" && s.Prepared() == 0 {
			t.Errorf("no statement is prepared after two finds of one shape")
		}
		in := func(keys []any) []string {
			return log.during(func() {
				rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1,
					Where: []storage.Cond{{Column: "id", Op: storage.Eq, Values: keys}}})
				if err != nil || len(rows) != len(keys) {
					t.Fatalf("find %v: %d rows, %v", keys, len(rows), err)
				}
			})
		}
		page := func(size int) string {
			texts := log.during(func() {
				if _, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Limit: size}); err != nil {
					t.Fatal(err)
				}
			})
			return texts[0]
		}
		// SQLite prepares a statement with a bound LIMIT again at every
		// run (its planner weighs the value), so there the count is in the
		// text; PostgreSQL shares one statement between page sizes.
		five, ten := page(5), page(10)
		switch s.Dialect() {
		case "sqlite":
			if !strings.HasSuffix(five, "LIMIT 5") || !strings.HasSuffix(ten, "LIMIT 10") {
				t.Errorf("SQLite pages of 5 and 10 sent\n%s\n%s\nwant the LIMIT in the text", five, ten)
			}
		default:
			if five != ten {
				t.Errorf("pages of 5 and 10 sent different texts:\n%s\n%s", five, ten)
			}
		}
		two, three := in(keys[:2]), in(keys)
		if s.Dialect() == "postgres" && two[0] != three[0] {
			t.Errorf("IN lists of 2 and 3 keys sent different texts:\n%s\n%s", two[0], three[0])
		}
	})
}
