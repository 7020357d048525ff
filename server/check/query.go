package check

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/problem"
)

// Unknown query parameters (issue 31, docs/queries.md "Query parameters").
//
// JSON:API 1.1 says a server MUST answer 400 to a query parameter whose name
// does not follow its naming rules for implementation-specific parameters
// (at least one character outside a-z) and that it does not know from the
// specification; a client writing `?country=DE` for `filter[country]=DE`, or
// `?limit=2` for `page[size]=2`, would otherwise get the first page of
// everything and believe it filtered. We go one step further, in both
// formats: a parameter the operation's document does not declare is a 400
// whatever its spelling, so a typo never changes the meaning of a request
// silently. The documents are the list: the parameters an operation declares
// are the ones it takes.
//
// Two families are declared member by member but read whole by the engine,
// which words their problems more precisely than "unknown": filter[...] (an
// operator suffix such as filter[name][contains] is not declared as a
// parameter of its own) and fields[...] (an unknown type is "not known").
// A family the operation declares no member of is unknown here.

// queryNames is what an operation accepts in its query string.
type queryNames struct {
	exact    map[string]bool // declared parameter names
	families []string        // "filter", "fields": prefixes the engine reads whole
	shown    string          // the accepted names, compact, for the problem's detail
}

// engineFamilies are the families the engine reads whole (see above).
var engineFamilies = []string{"filter", "fields"}

// newQueryNames collects the query parameters of params.
func newQueryNames(params []param) queryNames {
	q := queryNames{exact: map[string]bool{}}
	var shown []string
	seenFamily := map[string]bool{}
	for _, rp := range params {
		if rp.p.In != openapi3.ParameterInQuery {
			continue
		}
		name := rp.p.Name
		q.exact[name] = true
		family, _, bracketed := strings.Cut(name, "[")
		if bracketed && slices.Contains(engineFamilies, family) {
			if !seenFamily[family] {
				seenFamily[family] = true
				q.families = append(q.families, family)
				if family == "filter" {
					shown = append(shown, "filter[<field>]")
				} else {
					shown = append(shown, "fields[<type>]")
				}
			}
			if name != "filter[aggregations]" {
				continue
			}
		}
		shown = append(shown, name)
	}
	q.shown = strings.Join(shown, ", ")
	return q
}

// knows tells whether the operation takes the query parameter key.
func (q *queryNames) knows(key string) bool {
	if q.exact[key] {
		return true
	}
	for _, f := range q.families {
		if key == f || strings.HasPrefix(key, f+"[") {
			return true // the engine reads it and words its problem
		}
	}
	return false
}

// UnknownQuery answers the query parameters op does not take, one problem
// each (sorted by name, so the answer does not depend on map order), each
// naming the fix where one is likely: the declared spelling of a filter or
// page parameter, the header a token goes in, or the list of what the
// operation accepts. Nil when every parameter is known.
func (op *Operation) UnknownQuery(query url.Values) problem.List {
	var unknown []string
	for key := range query {
		if !op.query.knows(key) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	out := make(problem.List, 0, len(unknown))
	for _, key := range unknown {
		out = append(out, problem.Filter(key, op.unknownDetail(key, query.Get(key))))
	}
	return out
}

// unknownDetail words the problem of an unknown parameter key sent with value.
func (op *Operation) unknownDetail(key, value string) string {
	lead := fmt.Sprintf("The query parameter %q is not supported here.", key)
	if fix := op.likelyMeant(key, value); fix != "" {
		return lead + " " + fix
	}
	if op.query.shown == "" {
		return lead + " This operation takes no query parameters."
	}
	return lead + " It accepts: " + op.query.shown + "."
}

// pageSynonyms are the paging parameters of other APIs, by what they mean here.
var pageSynonyms = map[string]string{
	"limit": "page[size]", "size": "page[size]", "per_page": "page[size]", "perPage": "page[size]",
	"pageSize": "page[size]", "page_size": "page[size]", "count": "page[size]",
	"page": "page[number]", "offset": "page[number]", "pageNumber": "page[number]", "page_number": "page[number]",
	"after": "page[after]", "cursor": "page[after]", "before": "page[before]",
	"order": "sort", "orderBy": "sort", "order_by": "sort", "sort_by": "sort", "sortBy": "sort",
}

// likelyMeant is the fix for a parameter the client most likely meant as
// one the operation takes, or "".
func (op *Operation) likelyMeant(key, value string) string {
	shown := shortValue(value)
	switch {
	case key == "access_token":
		return "Send the access token in the Authorization header: Authorization: Bearer <token>."
	case key == "meta" && op.query.exact["metaProperties"]:
		return "Use metaProperties=" + orDefault(shown, "title") + " (JSON:API 1.1 reserves all-lower-case names such as meta for itself)."
	case op.query.exact["filter["+key+"]"]:
		return fmt.Sprintf("To filter by %s, send filter[%s]=%s.", key, key, orDefault(shown, "<value>"))
	}
	if to, ok := pageSynonyms[key]; ok && op.query.exact[to] {
		return fmt.Sprintf("Use %s=%s.", to, orDefault(shown, "<value>"))
	}
	return ""
}

// shortValue is value as a detail may quote it: at most 40 bytes, cut at a
// rune boundary, so that a long value does not swell the answer.
func shortValue(value string) string {
	const most = 40
	if len(value) <= most {
		return value
	}
	cut := most
	for cut > 0 && !isRuneStart(value[cut]) {
		cut--
	}
	return value[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
