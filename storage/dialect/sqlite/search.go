package sqlite

import (
	"strings"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// match is Features.Match: the keys of the rows whose text in the FTS5
// table <table>_search (contentless, kept by triggers from the declared
// attributes: migration 0017) matches the groups of the query, and none of
// the excluded phrases.
// FTS5 has no unary NOT, so what a query excludes is a NOT IN of its own;
// a query that only excludes keeps every other row.
func match(table, key string, q dialect.Search) (string, []any) {
	fts := bun.Ident(table + "_search")
	var parts []string
	var args []any
	if len(q.All) > 0 {
		parts = append(parts, "? IN (SELECT rowid FROM ? WHERE ? MATCH ?)")
		args = append(args, bun.Ident(key), fts, fts, ftsAll(q.All))
	}
	if len(q.Not) > 0 {
		parts = append(parts, "? NOT IN (SELECT rowid FROM ? WHERE ? MATCH ?)")
		args = append(args, bun.Ident(key), fts, fts, ftsAny(q.Not))
	}
	return "(" + strings.Join(parts, " AND ") + ")", args
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
// for better matches) of the rows of the organization the query matches;
// a query that only excludes ranks every row it keeps 0.
func searchHits(table, key string, org int64, q dialect.Search) (string, []any) {
	fts, k, o := bun.Ident(table+"_search"), bun.Ident(key), bun.Ident("organization_id")
	if len(q.All) == 0 {
		return "SELECT ? AS k, 0.0 AS score FROM ? WHERE ? = ? AND ? NOT IN (SELECT rowid FROM ? WHERE ? MATCH ?)",
			[]any{k, bun.Ident(table), o, org, k, fts, fts, ftsAny(q.Not)}
	}
	t := bun.Ident(table)
	text := "SELECT ?.? AS k, -bm25(?) AS score FROM ? JOIN ? ON ?.? = ?.rowid WHERE ? MATCH ? AND ?.? = ?"
	args := []any{t, k, fts, fts, t, t, k, fts, fts, ftsAll(q.All), t, o, org}
	if len(q.Not) > 0 {
		text += " AND ?.? NOT IN (SELECT rowid FROM ? WHERE ? MATCH ?)"
		args = append(args, t, k, fts, fts, ftsAny(q.Not))
	}
	return text, args
}
