package postgres

import (
	"strings"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// searchColumn is the generated tsvector column of a searchable table, kept
// by PostgreSQL from the declared attributes (migration 0017) and indexed
// with GIN.
const searchColumn = "search_vector"

// match is Features.Match: the search column against the query written as
// to_tsquery reads it, with the grouping the engine read (an OR binds the
// two phrases beside it, as web search engines read it; websearch_to_tsquery
// would bind the words around it first). 'simple' is the text-search
// configuration the column is built with: no stemming and no stop words.
func match(_, _ string, q dialect.Search) (string, []any) {
	return "? @@ to_tsquery('simple', ?)", []any{bun.Ident(searchColumn), tsquery(q)}
}

// tsquery writes q in to_tsquery's syntax: ('a' <-> 'b' | 'c') & !('d').
// Phrases hold letters, digits and spaces only, so each quoted word is a
// plain lexeme.
func tsquery(q dialect.Search) string {
	var parts []string
	for _, group := range q.All {
		parts = append(parts, "("+anyPhrase(group)+")")
	}
	if len(q.Not) > 0 {
		parts = append(parts, "!("+anyPhrase(q.Not)+")")
	}
	return strings.Join(parts, " & ")
}

// anyPhrase is the phrases joined by OR, each its words in order (<->).
func anyPhrase(phrases []string) string {
	out := make([]string, len(phrases))
	for i, p := range phrases {
		out[i] = "'" + strings.ReplaceAll(p, " ", "' <-> '") + "'"
	}
	return strings.Join(out, " | ")
}

// searchHits is Features.SearchHits: ts_rank of the search column against
// the query, for the rows of the organization the query matches.
func searchHits(table, key string, org int64, q dialect.Search) (string, []any) {
	query := tsquery(q)
	return "SELECT ? AS k, ts_rank(?, to_tsquery('simple', ?)) AS score FROM ? WHERE ? = ? AND ? @@ to_tsquery('simple', ?)",
		[]any{bun.Ident(key), bun.Ident(searchColumn), query, bun.Ident(table), bun.Ident("organization_id"), org,
			bun.Ident(searchColumn), query}
}
