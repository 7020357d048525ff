package postgres

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// searchColumn is the generated tsvector column of a searchable table's
// default index (search_vector_<lang> for a language's), kept by
// PostgreSQL from the declared attributes (migrations 0017 and 0018, then
// SearchVector when the configuration changes) and indexed with GIN.
const searchColumn = "search_vector"

// DefaultSearchConfiguration is the text-search configuration unless
// Options.SearchConfiguration names another: no stemming and no stop
// words, since records hold names in many languages.
const DefaultSearchConfiguration = "simple"

// configurationName is what a text-search configuration's name may be: an
// identifier, optionally after its schema's. Nothing else is written into
// the statements, where the name stands as a literal.
var configurationName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)

// CheckSearchConfiguration tells, without connecting, whether name can be
// a text-search configuration's name; whether the server has it, Open's
// caller learns when it first uses it (storage's search configuration
// check at migration).
func CheckSearchConfiguration(name string) error {
	if !configurationName.MatchString(name) {
		return fmt.Errorf("%q is not a text-search configuration name (lower-case letters, digits and _, optionally schema.name)", name)
	}
	return nil
}

// searchFeatures are the full-text parts of Features in configuration cfg
// (checked by CheckSearchConfiguration).
func searchFeatures(f *dialect.Features, cfg string) {
	literal := "'" + cfg + "'"
	f.SearchConfiguration = cfg
	f.Match = func(t dialect.SearchTarget, q dialect.Search) (string, []any) {
		return "? @@ to_tsquery(" + literal + ", ?)", []any{bun.Ident(dialect.SearchIndexColumn(searchColumn, t.Index)), tsquery(q)}
	}
	hits := "SELECT ? AS k, ts_rank(?, to_tsquery(" + literal + ", ?)) AS score FROM ? WHERE "
	f.SearchHits = func(t dialect.SearchTarget, q dialect.Search) (string, []any) {
		query, col := tsquery(q), bun.Ident(dialect.SearchIndexColumn(searchColumn, t.Index))
		text, args := hits, []any{bun.Ident(t.Key), col, query, bun.Ident(t.Table)}
		if t.Scoped {
			text += "? = ? AND "
			args = append(args, bun.Ident("organization_id"), t.Org)
		}
		return text + "? @@ to_tsquery(" + literal + ", ?)", append(args, col, query)
	}
	f.SearchVector = func(cols []string) string {
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = "coalesce(" + c + ", '')"
		}
		return "to_tsvector(" + literal + "::regconfig, regexp_replace(" + strings.Join(parts, " || ' ' || ") +
			", '[[:punct:][:space:]]+', ' ', 'g'))"
	}
}

// tsquery writes q in to_tsquery's syntax: ('a' <-> 'b' | 'c') & !('d'),
// with the grouping the engine read (an OR binds the two phrases beside
// it, as web search engines read it; websearch_to_tsquery would bind the
// words around it first). Phrases hold letters, digits and spaces only, so
// each quoted word is a plain lexeme.
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
