package sqlite

import (
	"strings"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// match is Features.Match: the keys of the rows whose text in the FTS5
// table <table>_search (contentless, kept by triggers from the declared
// attributes: migrations 0017 and 0018; a column per language where the
// attributes are localized) matches the groups of the query, and none of
// the excluded phrases.
// FTS5 has no unary NOT, so what a query excludes is a NOT IN of its own;
// a query that only excludes keeps every other row.
func match(t dialect.SearchTarget, q dialect.Search) (string, []any) {
	fts, col, fk := ftsTable(t), ftsColumn(t), ftsKey(t)
	var parts []string
	var args []any
	if len(q.All) > 0 {
		parts = append(parts, "? IN (SELECT ? FROM ? WHERE ? MATCH ?)")
		args = append(args, bun.Ident(t.Key), fk, fts, col, ftsAll(q.All))
	}
	if len(q.Not) > 0 {
		parts = append(parts, "? NOT IN (SELECT ? FROM ? WHERE ? MATCH ?)")
		args = append(args, bun.Ident(t.Key), fk, fts, col, ftsAny(q.Not))
	}
	return "(" + strings.Join(parts, " AND ") + ")", args
}

// ftsColumn is what a MATCH of the target's index is written against: the
// FTS5 table itself when its one column is the index, else the index's
// column (body, or body_<lang>: a column filter).
func ftsColumn(t dialect.SearchTarget) bun.Ident {
	if !t.Localized || t.Index == dialect.OpenIndex {
		return ftsTable(t)
	}
	return bun.Ident(dialect.SearchIndexColumn("body", t.Index))
}

// ftsTable is the FTS5 table of the target's index: <table>_search, or
// <table>_search_open for the open index (docs/fields.md).
func ftsTable(t dialect.SearchTarget) bun.Ident {
	if t.Index == dialect.OpenIndex {
		return bun.Ident(t.Table + "_search_open")
	}
	return bun.Ident(t.Table + "_search")
}

// ftsKey is the column of the target's FTS5 table that holds a row's key:
// its rowid, the key, where the key is an integer; else its column k (a
// table of text keys has rowids that VACUUM may renumber, so its FTS5
// table keeps the key itself, unindexed).
func ftsKey(t dialect.SearchTarget) bun.Ident {
	if t.IntKey {
		return bun.Ident("rowid")
	}
	return bun.Ident("k")
}

// ftsAll writes groups as an FTS5 query: every group (AND), each any of its
// phrases (OR, in parentheses: FTS5's OR binds looser than its AND).
// Phrases hold letters, digits and spaces only, so quoting them makes every
// word a plain token, never an FTS5 operator or column filter.
func ftsAll(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "(" + ftsAny(g) + ")"
	}
	return strings.Join(parts, " AND ")
}

// ftsAny writes phrases as an FTS5 query that any of them matches.
func ftsAny(phrases []string) string {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = `"` + p + `"`
	}
	return strings.Join(quoted, " OR ")
}

// searchHits is Features.SearchHits: FTS5's bm25 (negated: bm25 is lower
// for better matches) of the rows (of the organization, when scoped) the
// query matches; a query that only excludes ranks every row it keeps 0.
// A table with languages names the index's column (ftsColumn): a MATCH on
// the whole table would read the other languages too.
func searchHits(t dialect.SearchTarget, q dialect.Search) (string, []any) {
	fts, k, col, fk := ftsTable(t), bun.Ident(t.Key), ftsColumn(t), ftsKey(t)
	tb := bun.Ident(t.Table)
	if len(q.All) == 0 {
		text := "SELECT ? AS k, 0.0 AS score FROM ? WHERE ? NOT IN (SELECT ? FROM ? WHERE ? MATCH ?)"
		args := []any{k, tb, k, fk, fts, col, ftsAny(q.Not)}
		if t.Scoped {
			text += " AND ? = ?"
			args = append(args, bun.Ident("organization_id"), t.Org)
		}
		return text, args
	}
	text := "SELECT ?.? AS k, -bm25(?) AS score FROM ? JOIN ? ON ?.? = ?.? WHERE ? MATCH ?"
	args := []any{tb, k, fts, fts, tb, tb, k, fts, fk, col, ftsAll(q.All)}
	if t.Scoped {
		text += " AND ?.? = ?"
		args = append(args, tb, bun.Ident("organization_id"), t.Org)
	}
	if len(q.Not) > 0 {
		text += " AND ?.? NOT IN (SELECT ? FROM ? WHERE ? MATCH ?)"
		args = append(args, tb, k, fk, fts, col, ftsAny(q.Not))
	}
	return text, args
}
