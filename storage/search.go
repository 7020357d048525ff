package storage

import (
	"fmt"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// Search is a full-text query (dialect.Search): what filter[searchText]
// asks for.
type Search = dialect.Search

// SearchColumns are the columns each searchable table's full-text index
// holds, as migration 0017 builds it: PostgreSQL's generated search_vector
// column and SQLite's FTS5 table <table>_search with its triggers. The
// documents declare the attributes (x-entityapi search), and
// TestSearchIndexesFollowTheDocuments holds the three in step.
var SearchColumns = map[string][]string{
	"accounts":      {"name", "external_id"},
	"contacts":      {"first_name", "last_name", "primary_email", "external_id"},
	"users":         {"username", "email", "first_name", "last_name"},
	"businessunits": {"name", "email"},
}

// matchCond appends a Match condition: the rows of t holding the words of
// the one Search of c.Values, through the table's full-text index.
func (s *Store) matchCond(st *sqlText, t *Table, c Cond) error {
	if _, ok := SearchColumns[t.Name]; !ok {
		return fmt.Errorf("%s has no full-text index", t.Name)
	}
	if c.Column != "" || len(c.Values) != 1 {
		return fmt.Errorf("a full-text condition takes one search and no column")
	}
	q, ok := c.Values[0].(Search)
	if !ok || len(q.All)+len(q.Not) == 0 {
		return fmt.Errorf("a full-text condition takes a search with a phrase, not %T", c.Values[0])
	}
	text, args := s.f.Match(t.Name, t.Key, q)
	if s.f.CustomPlan != nil {
		for i, a := range args {
			if _, ident := a.(bun.Ident); !ident {
				args[i] = planEach{a} // see planEach
			}
		}
	}
	st.add(text, args...)
	return nil
}
