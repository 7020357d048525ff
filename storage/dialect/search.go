package dialect

// Search is a full-text query as the engine read it from filter[searchText]
// (docs/queries.md, "Search"): a record matches when every group of All has
// one of its phrases and no phrase of Not does. A phrase is one or more
// words (runs of letters and digits) separated by single spaces, found in
// that order; a word is found whatever its case.
type Search struct {
	All [][]string
	Not []string
	// Lang is the language the search is written in (the storefront's
	// X-Localization-ID): a table whose searched attributes are localized
	// has an index per language and is searched in this one; "", or a
	// language it has no index of, is its default index.
	Lang string
	// Open names the tables searched in their open index (OpenSearch):
	// the caller may not read every attribute of the table's default one
	// (docs/fields.md).
	Open []string
}

// SearchTarget is where a full-text query looks: one index of a table.
type SearchTarget struct {
	Table string // the table searched
	Key   string // its key column
	// Index is the index's language, one the table has an index of; "" is
	// the default index (PostgreSQL: the column search_vector, or
	// search_vector_<lang>; SQLite: the FTS5 table <table>_search's column
	// body, or body_<lang>); OpenIndex the open one (PostgreSQL: the column
	// search_vector_open; SQLite: the FTS5 table <table>_search_open, of
	// one column).
	Index string
	// IntKey: the key is an integer. SQLite's FTS5 tables are keyed by
	// their rowid, the record's key, where it is one; a table of text keys
	// has an FTS5 table with the key in its column k.
	IntKey bool
	// Localized: the table has an index per language besides its default
	// one, so that its default one is not the only text of its rows.
	Localized bool
	// Org is the organization whose rows SearchHits ranks when Scoped;
	// a table of shared reference data (Scoped false) has no organization.
	Org    int64
	Scoped bool
}

// SearchIndexColumn is the name of a table's full-text index of one
// language (SearchTarget.Index) for a dialect whose default index is
// named base.
func SearchIndexColumn(base, lang string) string {
	if lang == OpenIndex {
		return base + "_open"
	}
	if lang == "" {
		return base
	}
	return base + "_" + lang
}

// OpenIndex stands for the open index where an index is named like a
// language (SearchIndexColumn): the index of the attributes every reader
// of a table's records may read (docs/fields.md). No language is named so.
const OpenIndex = "+open"
