package dialect

// Search is a full-text query as the engine read it from filter[searchText]
// (docs/queries.md, "Search"): a record matches when every group of All has
// one of its phrases and no phrase of Not does. A phrase is one or more
// words (runs of letters and digits) separated by single spaces, found in
// that order; a word is found whatever its case.
type Search struct {
	All [][]string
	Not []string
}
