package engine

import (
	"slices"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// A document shows a localized attribute in one language (Attribute.ColumnIn
// of the request's language), yet its table holds a column per language:
// regions carry name_en, name_de, name_fr and name_es. The reads that render
// documents ask storage only for the columns a document in the request's
// language can show, so that the database neither sends the other
// languages' values nor the driver scans them (on a page of regions that
// scanning was most of the request's time). Writes, and whatever reads
// rows to compare or write them, still read every column.

// shownColumns holds, per resource type and language, the columns a read
// asks for; computed once when the application is built, so that a request
// only looks them up.
type shownColumns map[string]map[string][]string // type -> language ("": the default) -> columns (nil: every column)

// newShownColumns computes the columns of every resource of reg in every
// language one of its attributes is localized in, and in the default one.
func newShownColumns(reg *resource.Registry, tables map[string]*storage.Table) shownColumns {
	out := shownColumns{}
	for _, typ := range reg.Types() {
		res, _ := reg.Get(typ)
		byLang := map[string][]string{"": columnsShown(res, tables[typ], "")}
		for _, a := range res.Attributes {
			for lang := range a.Localized {
				if _, done := byLang[lang]; !done {
					byLang[lang] = columnsShown(res, tables[typ], lang)
				}
			}
		}
		out[typ] = byLang
	}
	return out
}

// columnsShown is every column of t except the localized columns of res's
// attributes in languages other than lang, in t's order; nil when that is
// every column. A column that anything else of res uses (an attribute in
// lang, an attribute that is not localized, the identifier, a to-one
// relationship) is always kept, even when it is also another language's
// column.
func columnsShown(res *resource.Resource, t *storage.Table, lang string) []string {
	keep := map[string]bool{res.IDColumn: true}
	for _, a := range append(slices.Clone(res.Attributes), res.WriteOnly...) {
		keep[a.ColumnIn(lang)] = true
		if len(a.Localized) == 0 {
			keep[a.Column] = true
		}
	}
	for _, rel := range res.Relationships {
		if rel.Column != "" {
			keep[rel.Column] = true
		}
	}
	skip := map[string]bool{}
	for _, a := range res.Attributes {
		for _, col := range a.Localized {
			if !keep[col] {
				skip[col] = true
			}
		}
	}
	if len(skip) == 0 {
		return nil
	}
	var cols []string
	for _, col := range t.Order {
		if !skip[col] {
			cols = append(cols, col)
		}
	}
	return cols
}

// shown is the columns a read of res renders for a request in lang (see
// columnsShown); a language none of res's attributes is localized in shows
// the default columns.
func (e *Engine) shown(res *resource.Resource, lang string) []string {
	byLang := e.shownCols[res.Type]
	if cols, ok := byLang[lang]; ok {
		return cols
	}
	return byLang[""]
}
