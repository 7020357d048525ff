package storage

import (
	"context"
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
	st.add(text, s.plannedEach(args)...)
	return nil
}

// SearchHit is one record a search across tables found: its table, its key
// and its relevance (higher first; comparable within one search only).
type SearchHit struct {
	Table string
	Key   any
	Score float64
}

// SearchOrder is the order of a search's hits.
type SearchOrder int

// The orders of FindMatches: by relevance, most relevant first (the
// default) or last, or by table name, then by relevance. Ties go by table
// name, then key, so that pages never overlap.
const (
	ByRelevance SearchOrder = iota
	ByRelevanceAscending
	ByTable
	ByTableDescending
)

// FindMatches returns a page of the rows of tables, in organization org,
// that hold the words of q (their full-text indexes ranked by the
// database: PostgreSQL's ts_rank, SQLite's bm25), with their keys.
func (c *Conn) FindMatches(ctx context.Context, tables []*Table, org int64, q Search, order SearchOrder, limit, offset int) ([]SearchHit, error) {
	var st sqlText
	st.add("SELECT entity, k, score FROM (")
	if err := c.s.unionOfMatches(&st, tables, org, q); err != nil {
		return nil, err
	}
	st.add(") AS hits ORDER BY ")
	switch order {
	case ByRelevanceAscending:
		st.add("score ASC, entity, k")
	case ByTable:
		st.add("entity ASC, score DESC, k")
	case ByTableDescending:
		st.add("entity DESC, score DESC, k")
	default:
		st.add("score DESC, entity, k")
	}
	if limit > 0 {
		st.add(" LIMIT ?", sqlCount(limit))
	} else if offset > 0 {
		st.add(c.s.f.OffsetWithoutLimit)
	}
	if offset > 0 {
		st.add(" OFFSET ?", sqlCount(offset))
	}
	rows, err := c.query(ctx, &st)
	if err != nil {
		return nil, c.s.mapError("search", "search", err)
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var h SearchHit
		var key int64
		if err := rows.Scan(&h.Table, &key, &h.Score); err != nil {
			return nil, c.s.mapError("search", "search", err)
		}
		h.Key = key
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, c.s.mapError("search", "search", err)
	}
	return out, nil
}

// CountMatches counts what FindMatches pages through.
func (c *Conn) CountMatches(ctx context.Context, tables []*Table, org int64, q Search) (int, error) {
	var st sqlText
	st.add("SELECT count(*) FROM (")
	if err := c.s.unionOfMatches(&st, tables, org, q); err != nil {
		return 0, err
	}
	st.add(") AS hits")
	rows, err := c.query(ctx, &st)
	if err != nil {
		return 0, c.s.mapError("search", "search", err)
	}
	defer rows.Close()
	n := 0
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, c.s.mapError("search", "search", err)
		}
	}
	return n, rows.Err()
}

// unionOfMatches appends the hits of every table, one SELECT of the table's
// name, key and relevance each, joined by UNION ALL.
func (s *Store) unionOfMatches(st *sqlText, tables []*Table, org int64, q Search) error {
	if len(tables) == 0 {
		return fmt.Errorf("storage: a search of no table")
	}
	if len(q.All)+len(q.Not) == 0 {
		return fmt.Errorf("storage: a search without a phrase")
	}
	for i, t := range tables {
		if _, ok := SearchColumns[t.Name]; !ok || !t.Scoped {
			return fmt.Errorf("storage: %s has no full-text index in an organization", t.Name)
		}
		if i > 0 {
			st.add(" UNION ALL ")
		}
		// Unlike a list's condition (matchCond), the union has no key order
		// a generic plan could walk instead of the index: every branch must
		// find its matches to rank them, so the statement keeps its prepared
		// plan (planning the four branches at every run cost the search a
		// third of its rate).
		text, args := s.f.SearchHits(t.Name, t.Key, org, q)
		st.add("SELECT CAST(? AS TEXT) AS entity, h.k, h.score FROM (", t.Name)
		st.add(text, args...)
		st.add(") AS h")
	}
	return nil
}

// plannedEach marks the values among a full-text condition's arguments so
// that its statement is planned for them at every run where the database
// keeps plans (planEach).
func (s *Store) plannedEach(args []any) []any {
	if s.f.CustomPlan == nil {
		return args
	}
	for i, a := range args {
		if _, ident := a.(bun.Ident); !ident {
			args[i] = planEach{a}
		}
	}
	return args
}
