package engine

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Paging limits (docs/decisions.md §5).
const (
	defaultPageSize = 10
	maxPageSize     = 1000
	maxUnpaged      = 10000
)

// listParams is a parsed list query: filters, sort, page, include, fields.
type listParams struct {
	where   []storage.Cond
	order   []storage.Order
	number  int
	size    int // -1: everything up to maxUnpaged
	include [][]*resource.Relationship
	// includeAsked: include was given, even empty (include= asks for no
	// related records, yet the answer must hold included: [], JSON:API 1.1).
	includeAsked bool
	fields       map[string]map[string]bool // type -> fields to return; absent type: all
	filtered     bool                       // at least one filter[...] was given
	aggs         []aggregation              // filter[aggregations] (aggregate.go)
	cursor       *cursorPage                // page[after] or page[before]; nil: paged by number
	pathSort     string                     // the first related field sort names (owner.username); "": none
}

// parseShape reads fields[type] and include, the shape of the answer; both
// are JSON:API only. A field the caller may not read (call.view) is unknown.
func (e *Engine) parseShape(cl *call, res *resource.Resource) (*listParams, error) {
	q, f := cl.query, cl.f
	p := &listParams{} // fields: made at the first fields[type]
	var errs problem.List
	for key, values := range q {
		if !strings.HasPrefix(key, "fields[") && key != "include" && key != "fields" {
			continue
		}
		if f == Plain {
			errs = append(errs, problem.Filter(key, jsonAPIOnly(key)))
			continue
		}
		value := values[len(values)-1]
		if key == "include" {
			inc, err := e.parseInclude(res, value)
			if err != nil {
				errs = append(errs, err.(*problem.Problem))
			}
			p.include, p.includeAsked = inc, true
			continue
		}
		typ := strings.TrimSuffix(strings.TrimPrefix(key, "fields["), "]")
		target, ok := e.reg.Get(typ)
		if ok {
			target = cl.view(target)
		}
		if key == "fields" || typ == "" {
			errs = append(errs, problem.Filter(key, "An entity type is not specified."))
			continue
		}
		if !ok {
			errs = append(errs, problem.Filter(key, "An entity type is not known."))
			continue
		}
		set := map[string]bool{}
		for _, name := range strings.Split(value, ",") {
			a, isAttr := target.Attribute(name)
			isAttr = isAttr && !a.WriteOnly
			_, isRel := target.Relationship(name)
			if name == "" {
				errs = append(errs, problem.Filter(key, fmt.Sprintf("Expected an array of not empty strings. Given %q.", value)))
				break
			}
			if !isAttr && !isRel {
				errs = append(errs, problem.Filter(key, fmt.Sprintf("The field %q is unknown.", name)))
				break
			}
			set[name] = true
		}
		if p.fields == nil {
			p.fields = map[string]map[string]bool{}
		}
		p.fields[typ] = set
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

func (e *Engine) parseInclude(res *resource.Resource, value string) ([][]*resource.Relationship, error) {
	var out [][]*resource.Relationship
	if value == "" {
		return nil, nil // include= asks for no related records (JSON:API 1.1, Inclusion of Related Resources)
	}
	for _, path := range strings.Split(value, ",") {
		if path == "" {
			return nil, problem.Filter("include", fmt.Sprintf("Expected an array of not empty strings. Given %q.", value))
		}
		cur := res
		var chain []*resource.Relationship
		for _, name := range strings.Split(path, ".") {
			rel, ok := cur.Relationship(name)
			if !ok {
				return nil, problem.Filter("include", fmt.Sprintf("The relationship %q is unknown.", path))
			}
			chain = append(chain, rel)
			cur, _ = e.reg.Get(rel.Target)
		}
		out = append(out, chain)
	}
	return out, nil
}

// parseList reads filters, sort and page of a list of res on top of the
// shape, for the caller of cl: of the fields it may read (call.view).
func (e *Engine) parseList(cl *call, res *resource.Resource) (*listParams, error) {
	res = cl.view(res)
	q, f, lang := cl.query, cl.f, cl.lang
	p, err := e.parseShape(cl, res)
	if err != nil {
		return nil, err
	}
	var errs problem.List
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if !strings.HasPrefix(key, "filter[") && !strings.HasPrefix(key, "filter") {
			continue
		}
		if key == aggregationsKey {
			aggs, err := parseAggregations(q, res, f)
			if err != nil {
				errs = append(errs, err)
			}
			p.aggs = aggs
			continue
		}
		cond, err := e.parseFilter(cl, res, key, q.Get(key), lang)
		if err != nil {
			errs = append(errs, err.(*problem.Problem))
			continue
		}
		p.where = append(p.where, cond)
		p.filtered = true
	}
	if s := q.Get("sort"); s != "" {
		order, pathSort, err := e.parseSort(cl, res, s, lang)
		if err != nil {
			errs = append(errs, err.(*problem.Problem))
		}
		p.order, p.pathSort = order, pathSort
	}
	var pageErrs problem.List
	p.number, p.size, pageErrs = parsePage(q)
	errs = append(errs, pageErrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	if p.cursor, errs = e.parseCursor(q, e.table(res), p.order, p.pathSort, p.size); len(errs) > 0 {
		return nil, errs
	}
	if p.cursor != nil {
		p.cursor.feed = res.Feed
	}
	return p, nil
}

// jsonAPIOnly is the detail of a JSON:API-only parameter (include,
// fields[...], metaProperties) in a plain-format request: what it does and
// how to get it (docs/queries.md "Query parameters").
func jsonAPIOnly(key string) string {
	return fmt.Sprintf("%s is a JSON:API parameter: the plain format answers every field of the requested records and no related "+
		"records. Send Accept: application/vnd.api+json to use it, or leave it out.", key)
}

// parsePage reads page[number] and page[size] (docs/decisions.md §5).
func parsePage(q url.Values) (number, size int, errs problem.List) {
	number, size = 1, defaultPageSize
	if v, ok := q["page[number]"]; ok {
		n, err := pageInt(v[0])
		switch {
		case err != nil:
			errs = append(errs, problem.Filter("page[number]", fmt.Sprintf("Expected integer value. Given %q.", v[0])))
		case n < 1:
			errs = append(errs, problem.Filter("page[number]", "The value should be greater than or equals to 1."))
		default:
			number = n
		}
	}
	if v, ok := q["page[size]"]; ok {
		n, err := pageInt(v[0])
		switch {
		case err != nil:
			errs = append(errs, problem.Filter("page[size]", fmt.Sprintf("Expected integer value. Given %q.", v[0])))
		case n == 0 || n < -1:
			errs = append(errs, problem.Filter("page[size]", "The value should be -1 (all records) or between 1 and 1000."))
		case n > maxPageSize:
			errs = append(errs, problem.PageSizeTooLarge(maxPageSize))
		default:
			size = n
		}
	}
	return number, size, errs
}

// pageInt reads a page[...] number: digits, or -1 (page[size]'s "every
// record"; other negatives get the range's error). A plus sign is refused,
// which strconv.Atoi would take: the cursor-pagination profile requires
// page[size] to match ^[0-9]+$, and page[number] keeps the same rule.
func pageInt(v string) (int, error) {
	if strings.HasPrefix(v, "+") {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(v)
}

// parseSort reads sort: fields of res, and declared paths through to-one
// relationships to a sortable field of related records (pathSort names the
// first such path, which a cursor cannot page by).
func (e *Engine) parseSort(cl *call, res *resource.Resource, value, lang string) (order []storage.Order, pathSort string, err error) {
	for _, f := range strings.Split(value, ",") {
		desc := strings.HasPrefix(f, "-")
		name := strings.TrimPrefix(f, "-")
		if col, ok := sortColumn(res, name, lang); ok {
			order = append(order, storage.Order{Column: col, Desc: desc})
			continue
		}
		path, ok := res.Path(name)
		if !ok || !path.Sortable() {
			return nil, "", problem.Sort(fmt.Sprintf("Sorting by %q field is not supported.", name))
		}
		hops, ok := e.pathHops(cl, path)
		if !ok {
			return nil, "", problem.Sort(fmt.Sprintf("Sorting by %q field is not supported.", name))
		}
		order = append(order, storage.Order{Column: path.Field.ColumnIn(lang), Desc: desc, Path: hops})
		if pathSort == "" {
			pathSort = name
		}
	}
	return order, pathSort, nil
}

func sortColumn(res *resource.Resource, name, lang string) (string, bool) {
	if name == "id" {
		return res.IDColumn, true
	}
	if a, ok := res.Attribute(name); ok && a.Sort {
		return a.ColumnIn(lang), true
	}
	if rel, ok := res.Relationship(name); ok && rel.Sort {
		return rel.Column, true
	}
	return "", false
}
