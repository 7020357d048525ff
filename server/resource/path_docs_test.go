package resource_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/resource"
)

// TestPathsAreDocumented keeps the documents' query parameters in step with
// the paths each resource declares (x-entityapi paths), and filter[searchText]
// with its search (x-entityapi search): every operation that
// filters a resource's records (its list, its delete by filter, the lists of
// it related to another record) documents filter[<path>] for each declared
// path, with each operator the field has, and no other; its sort parameter
// names each path a list may be sorted by. Partners' generators see only the
// parameters, so a path the engine serves without one would be invisible,
// and one documented but not declared would be refused.
func TestPathsAreDocumented(t *testing.T) {
	for name, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		t.Run(name, func(t *testing.T) {
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			if err != nil {
				t.Fatal(err)
			}
			reg, err := resource.Load(doc)
			if err != nil {
				t.Fatal(err)
			}
			for route, item := range doc.Paths.Map() {
				for method, op := range item.Operations() {
					params := map[string]*openapi3.Parameter{}
					for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
						params[p.Value.Name] = p.Value
					}
					where := fmt.Sprintf("%s %s", method, route)
					res := filtered(reg, params)
					for pname := range params {
						if isPathFilter(pname) && res == nil {
							t.Errorf("%s: %s on an operation that filters no resource's records", where, pname)
						}
					}
					if res == nil {
						continue
					}
					for pname := range params {
						if !isPathFilter(pname) {
							continue
						}
						if _, ok := res.Path(strings.TrimSuffix(strings.TrimPrefix(pname, "filter["), "]")); !ok {
							t.Errorf("%s: %s is documented but %s declares no such path", where, pname, res.Type)
						}
					}
					if _, documented := params["filter[searchText]"]; documented != (len(res.Search) > 0) {
						t.Errorf("%s: filter[searchText] documented %v, but %s declares search on %d attributes", where, documented, res.Type, len(res.Search))
					}
					for _, path := range res.Paths {
						p, ok := params["filter["+path.Name+"]"]
						if !ok {
							t.Errorf("%s: lists %s but does not document filter[%s]", where, res.Type, path.Name)
							continue
						}
						for _, opName := range path.Field.Filter {
							if !strings.Contains(p.Description, "`"+opName+"`") {
								t.Errorf("%s: filter[%s] does not name its operator %q", where, path.Name, opName)
							}
						}
						if s, ok := params["sort"]; ok && path.Sortable() && !strings.Contains(s.Description, "`"+path.Name+"`") {
							t.Errorf("%s: sort does not name %q, which %s may be sorted by", where, path.Name, res.Type)
						}
					}
				}
			}
		})
	}
}

// isPathFilter tells a filter on a path (filter[owner.username]) from the others.
func isPathFilter(name string) bool {
	return strings.HasPrefix(name, "filter[") && strings.HasSuffix(name, "]") && strings.Contains(name, ".")
}

// filtered is the resource whose records an operation filters: the one whose
// own filters (on its id, attributes and relationships) are exactly the
// operation's filters that are not on paths; nil when there is none.
func filtered(reg *resource.Registry, params map[string]*openapi3.Parameter) *resource.Resource {
	plain := map[string]bool{}
	for name := range params {
		if strings.HasPrefix(name, "filter[") && !isPathFilter(name) && name != "filter[aggregations]" && name != "filter[searchText]" {
			plain[name] = true
		}
	}
	if len(plain) == 0 {
		return nil
	}
	for _, typ := range reg.Types() {
		r, _ := reg.Get(typ)
		own := map[string]bool{"filter[id]": true}
		for _, a := range r.Attributes {
			if len(a.Filter) > 0 {
				own["filter["+a.Name+"]"] = true
			}
		}
		for _, rel := range r.Relationships {
			if len(rel.Filter) > 0 {
				own["filter["+rel.Name+"]"] = true
			}
		}
		if maps.Equal(own, plain) {
			return r
		}
	}
	return nil
}
