package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// searchType is the address of the search across types, /api/search (Oro's
// search API); its results are search resources naming records of the
// searchable types, not records of a table of their own.
const searchType = "search"

// searchResource stands for the search where routes need a resource: every
// caller with a role may search, and finds only what it may read.
var searchResource = &resource.Resource{Type: searchType}

// Search answers GET /api/search (docs/queries.md, "Search"): the records of
// the searchable types the caller may read, in its organization, that hold
// the words of filter[searchText] (read as each list's filter[searchText]
// reads it), most relevant first, one search resource each: the record's
// type and title, the record as its entity relationship, its relevance in
// meta.score; include=entity adds the records.
//
// Its ETag is a hash of the answer (tagged), so a client or an HTTP cache
// revalidates it with If-None-Match.
func (e *Engine) Search(r *Request) (*jsonapi.Reply, error) { return tagged(r, e.searchAnswer) }

func (e *Engine) searchAnswer(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx, q := cl.ctx, cl.query
	var errs problem.List
	var search storage.Search
	if raw, ok := q["filter[searchText]"]; !ok {
		errs = append(errs, problem.Filter("filter[searchText]", "The search needs a text: filter[searchText]=words."))
	} else if s, p := parseSearchText("filter[searchText]", raw[len(raw)-1]); p != nil {
		errs = append(errs, p)
	} else {
		search = s
		search.Lang = cl.lang
	}
	types, p := e.searchedTypes(cl, q)
	if p != nil {
		errs = append(errs, p)
	}
	order, p := searchOrder(q.Get("sort"))
	if p != nil {
		errs = append(errs, p)
	}
	include := false
	if v, ok := q["include"]; ok {
		switch {
		case cl.f == Plain:
			errs = append(errs, problem.Filter("include", jsonAPIOnly("include")))
		case v[len(v)-1] == "entity":
			include = true
		case v[len(v)-1] != "":
			errs = append(errs, problem.Filter("include", fmt.Sprintf("The relationship %q is unknown: a search result has one, entity.", v[len(v)-1])))
		}
	}
	number, size, pageErrs := parsePage(q)
	errs = append(errs, pageErrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	tables := make([]*storage.Table, len(types))
	for i, res := range types {
		tables[i] = e.table(res)
		if res.SearchOpen { // the caller may not read every searched field
			search.Open = append(search.Open, tables[i].Name)
		}
	}
	limit, offset := size, (number-1)*size
	if size < 0 {
		limit, offset = maxUnpaged, 0
	}
	hits, err := cl.db.FindMatches(ctx, tables, cl.org, search, order, limit+1, offset)
	if err != nil {
		return nil, err
	}
	hasMore := len(hits) > limit
	if hasMore && size < 0 {
		return nil, problem.Filter("page[size]", fmt.Sprintf("More than %d records match; use paging.", maxUnpaged))
	}
	if hasMore {
		hits = hits[:limit]
	}
	total := -1
	if cl.xinclude["totalCount"] {
		if total, err = cl.db.CountMatches(ctx, tables, cl.org, search); err != nil {
			return nil, err
		}
	}
	found, err := e.searchRecords(cl, types, hits, include)
	if err != nil {
		return nil, err
	}
	self := cl.link(searchType, "")
	if cl.f == Plain {
		objs := make([][]jsonapi.Member, 0, len(hits))
		for _, h := range hits {
			if f, ok := found.of(h); ok {
				objs = append(objs, []jsonapi.Member{{Name: "entity", Value: f.res.Type}, {Name: "id", Value: h.Key},
					{Name: "title", Value: title(f.res, f.row, cl.lang)}, {Name: "score", Value: h.Score}})
			}
		}
		return withTotal(cl.reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), objs)).Pooled(), total), nil
	}
	data := make(jsonapi.Many, 0, len(hits))
	for _, h := range hits {
		f, ok := found.of(h)
		if !ok {
			continue // deleted between the search and the read of its record
		}
		id := keyString(h.Key)
		data = append(data, &jsonapi.ResourceObject{
			Type: searchType, ID: f.res.Type + "-" + id,
			Attributes: []jsonapi.Member{{Name: "entity", Value: f.res.Type}, {Name: "title", Value: title(f.res, f.row, cl.lang)}},
			Relationships: []jsonapi.RelationshipObject{{Name: "entity",
				Data: []jsonapi.Identifier{{Type: f.res.Type, ID: id}}}},
			Meta: []jsonapi.Member{{Name: "score", Value: h.Score}},
		})
	}
	doc := &jsonapi.TopLevel{Data: data, IncludeAsked: include}
	if include {
		if doc.Included, err = e.searchIncluded(cl, types, found); err != nil {
			return nil, err
		}
	}
	if cl.hateoas {
		doc.Links = cl.pageLinks(self, &listParams{number: number, size: size}, hasMore, total)
	}
	return withTotal(cl.reply(http.StatusOK, doc, nil), total), nil
}

// searchedByOperation reads the types a search operation spans: its
// x-entityapi search, each a type of reg with a full-text index. Each
// application's document says what its search finds (the back office its
// organizations' records, the storefront what it shows), so that the
// search's results, their types and their identifiers are the document's.
func searchedByOperation(reg *resource.Registry, op *openapi3.Operation) ([]*resource.Resource, error) {
	var ext struct {
		Search []string `json:"search"`
	}
	raw, err := json.Marshal(op.Extensions["x-entityapi"])
	if err == nil {
		err = json.Unmarshal(raw, &ext)
	}
	if err != nil {
		return nil, fmt.Errorf("x-entityapi: %w", err)
	}
	if len(ext.Search) == 0 {
		return nil, fmt.Errorf("x-entityapi search: name the types the search spans")
	}
	out := make([]*resource.Resource, 0, len(ext.Search))
	for _, typ := range ext.Search {
		res, ok := reg.Get(typ)
		if !ok || len(res.Search) == 0 {
			return nil, fmt.Errorf("x-entityapi search: %q is not a type with x-entityapi search", typ)
		}
		out = append(out, res)
	}
	return out, nil
}

// searchedTypes are the types filter[entities] names (all the route's
// when absent), each one the caller may read, as it sees it (call.view:
// the title and the words of the fields it reads): a type it may not read
// is answered as one that is not searchable, never searched.
func (e *Engine) searchedTypes(cl *call, q map[string][]string) ([]*resource.Resource, *problem.Problem) {
	var all []*resource.Resource
	for _, res := range cl.rt.searches {
		if len(res.Readers) == 0 || allowed(cl.roles, res, viewAction) {
			all = append(all, cl.view(res)) // its title and words: of the fields the caller reads
		}
	}
	v, ok := q["filter[entities]"]
	if !ok {
		return all, nil
	}
	var out []*resource.Resource
	for _, name := range strings.Split(v[len(v)-1], ",") {
		i := slices.IndexFunc(all, func(r *resource.Resource) bool { return r.Type == name })
		if i < 0 {
			names := make([]string, len(all))
			for j, r := range all {
				names[j] = r.Type
			}
			return nil, problem.Filter("filter[entities]", fmt.Sprintf("The entity type %q is not searchable. Searchable: %s.", name, strings.Join(names, ", ")))
		}
		if !slices.Contains(out, all[i]) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// searchOrder reads the search's sort: relevance (the default), or type.
func searchOrder(v string) (storage.SearchOrder, *problem.Problem) {
	switch v {
	case "", "-score":
		return storage.ByRelevance, nil
	case "score":
		return storage.ByRelevanceAscending, nil
	case "entity":
		return storage.ByTable, nil
	case "-entity":
		return storage.ByTableDescending, nil
	}
	return 0, problem.Sort(fmt.Sprintf("Sorting by %q field is not supported: a search sorts by -score (the default), score, entity or -entity.", v))
}

// searchFound are the records of a page of hits, by table and key.
type searchFound map[string]map[string]searchRecord

// searchRecord is a record a search found, with its resource.
type searchRecord struct {
	res *resource.Resource
	row storage.Row
}

// of is the record of a hit; false when it was deleted after the search.
func (f searchFound) of(h storage.SearchHit) (searchRecord, bool) {
	r, ok := f[h.Table][keyString(h.Key)]
	return r, ok
}

// searchRecords reads the records of the hits, one query per type, in the
// caller's organization.
//
// Without include=entity only the columns of the titles are read.
func (e *Engine) searchRecords(cl *call, types []*resource.Resource, hits []storage.SearchHit, whole bool) (searchFound, error) {
	found := searchFound{}
	for _, res := range types {
		var keys []any
		for _, h := range hits {
			if h.Table == res.Table {
				keys = append(keys, h.Key)
			}
		}
		if len(keys) == 0 {
			continue
		}
		q := storage.Query{Table: e.table(res), Org: cl.org, Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}}
		if !whole {
			q.Columns = titleColumns(res, cl.lang)
		}
		rows, err := cl.db.Find(cl.ctx, q)
		if err != nil {
			return nil, err
		}
		byKey := make(map[string]searchRecord, len(rows))
		for _, row := range rows {
			byKey[keyString(row[res.IDColumn])] = searchRecord{res: res, row: row}
		}
		found[res.Table] = byKey
	}
	return found, nil
}

// searchIncluded renders the records found, each as its own type's
// resource, for include=entity.
func (e *Engine) searchIncluded(cl *call, types []*resource.Resource, found searchFound) ([]*jsonapi.ResourceObject, error) {
	var out []*jsonapi.ResourceObject
	if cl.arena == nil {
		cl.arena = newArena()
	}
	for _, res := range types {
		byKey := found[res.Table]
		if len(byKey) == 0 {
			continue
		}
		rows := make([]storage.Row, 0, len(byKey))
		for _, r := range byKey {
			rows = append(rows, r.row)
		}
		slices.SortFunc(rows, func(a, b storage.Row) int {
			return strings.Compare(keyString(a[res.IDColumn]), keyString(b[res.IDColumn]))
		})
		links, err := e.loadLinkage(cl.ctx, cl, res, rows, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, e.resourceObjects(cl, res, rows, nil, links)...)
	}
	return out, nil
}

// titleColumns are the columns title reads of res: its key and the
// columns of its title attributes, each once.
func titleColumns(res *resource.Resource, lang string) []string {
	cols := []string{res.IDColumn}
	for _, name := range res.Title {
		if a, ok := res.Attribute(name); ok && !slices.Contains(cols, a.ColumnIn(lang)) {
			cols = append(cols, a.ColumnIn(lang))
		}
	}
	return cols
}
