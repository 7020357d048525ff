package storage

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// Search is a full-text query (dialect.Search): what filter[searchText]
// asks for.
type Search = dialect.Search

// SearchColumns are the columns each searchable table's full-text indexes
// hold, by the index's language ("" the default index), as migrations 0017
// and 0018 build them: PostgreSQL's generated search_vector (and
// search_vector_<lang>) columns, SQLite's FTS5 table <table>_search (its
// column body, and body_<lang>) with its triggers. A table whose searched
// attributes are localized (x-localized) has an index per language, the
// language's columns in place of the default ones. The documents declare
// the attributes (x-entityapi search), and
// TestSearchIndexesFollowTheDocuments holds the three in step.
var SearchColumns = map[string]map[string][]string{
	"accounts":      {"": {"name", "external_id"}},
	"contacts":      {"": {"first_name", "last_name", "primary_email", "external_id"}},
	"users":         {"": {"username", "email", "first_name", "last_name"}},
	"businessunits": {"": {"name", "email"}},
	"countries": {"": {"name_en", "iso3"}, "de": {"name_de", "iso3"},
		"fr": {"name_fr", "iso3"}, "es": {"name_es", "iso3"}},
	"regions": {"": {"name_en", "sub_code"}, "de": {"name_de", "sub_code"},
		"fr": {"name_fr", "sub_code"}, "es": {"name_es", "sub_code"}},
}

// OpenSearchColumns are the columns of the open index of each table that
// has one (dialect.OpenIndex; migration 0022): the searched attributes
// every reader of the records may read, for the callers who may not read
// the others (docs/fields.md). A resource whose searched attributes name
// their readers needs one (TestSearchIndexesFollowTheDocuments), and its
// default index is its only other one.
var OpenSearchColumns = map[string][]string{
	"users": {"username", "first_name", "last_name"},
}

// searchIndexes are the indexes of table, by name (a language, or
// dialect.OpenIndex), with their columns.
func searchIndexes(table string) map[string][]string {
	open, ok := OpenSearchColumns[table]
	if !ok {
		return SearchColumns[table]
	}
	out := maps.Clone(SearchColumns[table])
	out[dialect.OpenIndex] = open
	return out
}

// searchTarget is the index of t a search in q.Lang reads: the open one
// when q names t among its Open tables; else the language's when t has
// one, else the default one.
func searchTarget(t *Table, org int64, q Search) (dialect.SearchTarget, error) {
	indexes, ok := SearchColumns[t.Name]
	if !ok {
		return dialect.SearchTarget{}, fmt.Errorf("storage: %s has no full-text index", t.Name)
	}
	target := dialect.SearchTarget{Table: t.Name, Key: t.Key, Org: org, Scoped: t.Scoped,
		IntKey: t.Columns[t.Key] == KindInt, Localized: len(indexes) > 1}
	if slices.Contains(q.Open, t.Name) {
		if _, ok := OpenSearchColumns[t.Name]; !ok {
			return dialect.SearchTarget{}, fmt.Errorf("storage: %s has no open full-text index", t.Name)
		}
		target.Index = dialect.OpenIndex
		return target, nil
	}
	if _, ok := indexes[q.Lang]; ok {
		target.Index = q.Lang
	}
	return target, nil
}

// matchCond appends a Match condition: the rows of t holding the words of
// the one Search of c.Values, through the table's full-text index.
func (s *Store) matchCond(st *sqlText, t *Table, c Cond) error {
	if c.Column != "" || len(c.Values) != 1 {
		return fmt.Errorf("a full-text condition takes one search and no column")
	}
	q, ok := c.Values[0].(Search)
	if !ok || len(q.All)+len(q.Not) == 0 {
		return fmt.Errorf("a full-text condition takes a search with a phrase, not %T", c.Values[0])
	}
	target, err := searchTarget(t, 0, q)
	if err != nil {
		return err
	}
	text, args := s.f.Match(target, q)
	st.add(text, s.plannedEach(args)...)
	return nil
}

// SearchHit is one record a search across tables found: its table, its key
// (as its table's key column holds it: int64 or string) and its relevance
// (higher first; comparable within one search only).
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

// FindMatches returns a page of the rows of tables (in organization org,
// for those scoped to one) that hold the words of q (their full-text
// indexes ranked by the database: PostgreSQL's ts_rank, SQLite's bm25),
// with their keys.
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
	intKeys := !slices.ContainsFunc(tables, func(t *Table) bool { return t.Columns[t.Key] != KindInt })
	var out []SearchHit
	for rows.Next() {
		var h SearchHit
		if intKeys { // the back office: integers, scanned as such
			var key int64
			if err := rows.Scan(&h.Table, &key, &h.Score); err != nil {
				return nil, c.s.mapError("search", "search", err)
			}
			h.Key = key
			out = append(out, h)
			continue
		}
		var key string
		if err := rows.Scan(&h.Table, &key, &h.Score); err != nil {
			return nil, c.s.mapError("search", "search", err)
		}
		if h.Key, err = hitKey(tables, h.Table, key); err != nil {
			return nil, err
		}
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

// hitKey is a hit's key, read as text, as the key column of its table (one
// of tables) holds it: where text keys are in the union, integer keys are
// answered as text too when both kinds met in it.
func hitKey(tables []*Table, table, key string) (any, error) {
	i := slices.IndexFunc(tables, func(t *Table) bool { return t.Name == table })
	if i < 0 {
		return nil, fmt.Errorf("storage: a search hit of a table not searched: %q", table)
	}
	t := tables[i]
	if t.Columns[t.Key] != KindInt {
		return key, nil
	}
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("storage: a search hit of %s with key %q: %w", t.Name, key, err)
	}
	return n, nil
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
	// Keys stay as their tables hold them, so that ties go by key in its
	// own order (2 before 10), unless tables of integer and of text keys
	// meet in the union: then as text.
	mixed := slices.ContainsFunc(tables, func(t *Table) bool {
		return (t.Columns[t.Key] == KindInt) != (tables[0].Columns[tables[0].Key] == KindInt)
	})
	for i, t := range tables {
		target, err := searchTarget(t, org, q)
		if err != nil {
			return err
		}
		if i > 0 {
			st.add(" UNION ALL ")
		}
		// Unlike a list's condition (matchCond), the union has no key order
		// a generic plan could walk instead of the index: every branch must
		// find its matches to rank them, so the statement keeps its prepared
		// plan (planning the four branches at every run cost the search a
		// third of its rate).
		text, args := s.f.SearchHits(target, q)
		if mixed {
			st.add("SELECT CAST(? AS TEXT) AS entity, CAST(h.k AS TEXT) AS k, h.score FROM (", t.Name)
		} else {
			st.add("SELECT CAST(? AS TEXT) AS entity, h.k, h.score FROM (", t.Name)
		}
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
