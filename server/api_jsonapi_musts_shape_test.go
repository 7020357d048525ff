package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The JSON:API 1.1 document rules that the published 1.0 schema, which the
// harness holds every JSON:API answer to (contract.check), does not check:
// member names by 1.1's rules, a resource's fields sharing one namespace with
// type and id, one resource object per type and id in a compound document,
// full linkage, nothing included that include did not ask for, and the shape
// of the primary data for the kind of address asked. docs/jsonapi-conformance.md
// lists which requirement each check stands for.

// failer is what the checks below report to: a *testing.T, or the
// recorder with which TestJSONAPIMustCheckerCatchesBreaches shows that each
// check can fail.
type failer interface {
	Helper()
	Errorf(format string, args ...any)
}

// primaryKind is the primary data an address answers (JSON:API 1.1,
// "Top Level"): a resource or identifier, null, or an array of them.
type primaryKind int

const (
	anyPrimary primaryKind = iota // no expectation (error documents)
	oneObject                     // a resource object or resource identifier object
	nullData                      // null: a to-one relationship that is empty
	array                         // an array, even of one or no element
)

// checkDocument fails t where the JSON:API answer r to a request with the
// query q breaks a rule of the specification that the 1.0 schema leaves out.
func checkDocument(t failer, r *result, q url.Values, want primaryKind) {
	t.Helper()
	if len(r.body) == 0 {
		return
	}
	// A page read by cursor names the profile it applies (JSON:API 1.1);
	// the atomic extension's answers name it (ext=); the rest none.
	ct := r.header.Get("Content-Type")
	cursor := q.Has("page[after]") || q.Has("page[before]")
	switch {
	case strings.Contains(ct, "ext="):
	case cursor && r.doc != nil && r.doc["data"] != nil:
		if ct != cursorMediaType {
			t.Errorf("Content-Type %q of a cursor page, want %q", ct, cursorMediaType)
		}
	case ct != "application/vnd.api+json":
		t.Errorf("Content-Type %q, want the JSON:API media type without parameters", ct)
	}
	if r.doc == nil {
		t.Errorf("the top level is not an object: %.200s", r.body)
		return
	}
	checkMemberNames(t, r.doc, "")
	data, hasData := r.doc["data"]
	_, hasErrors := r.doc["errors"]
	_, hasMeta := r.doc["meta"]
	_, hasIncluded := r.doc["included"]
	switch {
	case !hasData && !hasErrors && !hasMeta && r.doc["atomic:results"] == nil:
		t.Errorf("no data, errors or meta at the top level")
	case hasData && hasErrors:
		t.Errorf("data and errors together")
	case hasIncluded && !hasData:
		t.Errorf("included without data")
	}
	if hasErrors {
		checkErrorObjects(t, r.doc["errors"])
	}
	checkPrimary(t, data, hasData, want)
	primary, included := resourcesOf(data), resourcesOf(r.doc["included"])
	seen := map[string]bool{}
	for _, res := range slices.Concat(primary, included) {
		checkResourceObject(t, res)
		key := identity(res)
		if seen[key] && len(primary) > 0 && !isIdentifierList(data) {
			t.Errorf("%s appears twice in the compound document", key)
		}
		seen[key] = true
	}
	if hasIncluded {
		checkLinkage(t, primary, included, q)
	}
}

// checkPrimary compares the primary data with the kind the address answers.
func checkPrimary(t failer, data any, present bool, want primaryKind) {
	t.Helper()
	switch want {
	case oneObject:
		if _, ok := data.(map[string]any); !ok {
			t.Errorf("primary data %v, want one object", data)
		}
	case nullData:
		if !present || data != nil {
			t.Errorf("primary data %v (present %v), want null", data, present)
		}
	case array:
		if _, ok := data.([]any); !ok {
			t.Errorf("primary data %v, want an array", data)
		}
	}
}

// resourcesOf is the objects of primary data or of included.
func resourcesOf(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// isIdentifierList tells an array of resource identifier objects (a
// relationship endpoint's answer), where a type and id may not repeat
// either but are no resource objects.
func isIdentifierList(v any) bool {
	for _, m := range resourcesOf(v) {
		for k := range m {
			if k != "type" && k != "id" && k != "meta" {
				return false
			}
		}
	}
	return true
}

func identity(res map[string]any) string {
	typ, _ := res["type"].(string)
	id, _ := res["id"].(string)
	return typ + ":" + id
}

// checkResourceObject: type and id strings, type a legal member name, fields
// sharing one namespace with type and id, relationship objects holding links,
// data or meta, linkage null, an identifier or an array of identifiers.
func checkResourceObject(t failer, res map[string]any) {
	t.Helper()
	typ, okType := res["type"].(string)
	_, okID := res["id"].(string)
	if !okType || !okID {
		t.Errorf("resource %v: type and id must be strings", res)
		return
	}
	if !legalMemberName(typ) {
		t.Errorf("type %q is not a legal member name", typ)
	}
	attrs, _ := res["attributes"].(map[string]any)
	rels, _ := res["relationships"].(map[string]any)
	for name := range attrs {
		if _, both := rels[name]; both || name == "type" || name == "id" {
			t.Errorf("%s: field %q shares the namespace of another field, type or id", identity(res), name)
		}
	}
	for name, v := range rels {
		rel, ok := v.(map[string]any)
		if !ok || (rel["links"] == nil && rel["meta"] == nil && !hasKey(rel, "data")) {
			t.Errorf("%s: relationship %q is %v, want an object with links, data or meta", identity(res), name, v)
			continue
		}
		if hasKey(rel, "data") {
			checkLinkageValue(t, identity(res)+" "+name, rel["data"])
		}
	}
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// checkLinkageValue: null, one identifier, or an array of identifiers.
func checkLinkageValue(t failer, where string, v any) {
	t.Helper()
	ids := []any{v}
	if list, ok := v.([]any); ok {
		ids = list
	} else if v == nil {
		return
	}
	for _, e := range ids {
		m, ok := e.(map[string]any)
		_, okType := m["type"].(string)
		_, okID := m["id"].(string)
		if !ok || !okType || !okID {
			t.Errorf("%s: linkage %v is not an identifier", where, e)
		}
	}
}

// checkLinkage: every included resource is reached from the primary data
// through the relationships include named (or any relationship when the
// request named none); with include, every resource so reached is included;
// sparse fieldsets may cut a chain, so a request with fields[...] is spared.
func checkLinkage(t failer, primary, included []map[string]any, q url.Values) {
	t.Helper()
	for k := range q {
		if strings.HasPrefix(k, "fields[") {
			return
		}
	}
	byID := map[string]map[string]any{}
	for _, res := range slices.Concat(primary, included) {
		byID[identity(res)] = res
	}
	reached := map[string]bool{}
	follow := func(from []map[string]any, name string) []map[string]any {
		var next []map[string]any
		for _, res := range from {
			rels, _ := res["relationships"].(map[string]any)
			for relName, v := range rels {
				if name != "" && relName != name {
					continue
				}
				data, _ := v.(map[string]any)
				for _, id := range resourcesOf(data["data"]) {
					key := identity(id)
					reached[key] = true
					if target, ok := byID[key]; ok {
						next = append(next, target)
					}
				}
			}
		}
		return next
	}
	if paths := q.Get("include"); q.Has("include") && paths != "" {
		for _, path := range strings.Split(paths, ",") {
			level := primary
			for _, name := range strings.Split(path, ".") {
				level = follow(level, name)
			}
		}
	} else {
		level := primary
		for range 5 { // five levels reach every chain the tests include
			level = follow(level, "")
		}
	}
	inPrimary := map[string]bool{}
	for _, res := range primary {
		inPrimary[identity(res)] = true
	}
	inIncluded := map[string]bool{}
	for _, res := range included {
		inIncluded[identity(res)] = true
		if !reached[identity(res)] {
			t.Errorf("included %s is not reached from the primary data through the requested relationships", identity(res))
		}
	}
	if q.Get("include") == "" {
		return
	}
	for key := range reached {
		if !inIncluded[key] && !inPrimary[key] {
			t.Errorf("%s is linked along the requested include paths but not included", key)
		}
	}
}

// checkErrorObjects: each error object holds at least one member of its
// kind; status and code are strings, source names where.
func checkErrorObjects(t failer, v any) {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Errorf("errors %v is not an array", v)
		return
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok || len(m) == 0 {
			t.Errorf("errors/%d: %v is not an error object with a member", i, e)
			continue
		}
		for _, k := range []string{"status", "code", "title", "detail"} {
			if x, given := m[k]; given {
				if _, ok := x.(string); !ok {
					t.Errorf("errors/%d/%s = %v, want a string", i, k, x)
				}
			}
		}
	}
}

// checkMemberNames walks every object of the document and holds its member
// names to JSON:API 1.1's rules (an extension's namespaced top-level member
// aside).
func checkMemberNames(t failer, v any, where string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !legalMemberName(k) && !(where == "" && strings.HasPrefix(k, "atomic:")) {
				t.Errorf("member name %q at %s/ is not legal", k, where)
			}
			checkMemberNames(t, e, where+"/"+k)
		}
	case []any:
		for i, e := range x {
			checkMemberNames(t, e, where+"/"+strconv.Itoa(i))
		}
	}
}

// legalMemberName is JSON:API 1.1's "Member Names": at least one character,
// only a-z, A-Z, 0-9 and non-ASCII anywhere, "-", "_" and space inside, and
// "@" first for an @-member.
func legalMemberName(name string) bool {
	name = strings.TrimPrefix(name, "@")
	if name == "" {
		return false
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r >= 0x80:
		case (r == '-' || r == '_' || r == ' ') && i > 0 && i < len(runes)-1:
		default:
			return false
		}
	}
	return true
}

// pointerExists tells whether a JSON Pointer (RFC 6901) names a value of the
// request document: JSON:API 1.1 says an error's source.pointer MUST.
func pointerExists(body, pointer string) bool {
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return false
	}
	if pointer == "" {
		return true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

// recorder collects what the checks report, so that a test can show they fail.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestJSONAPIMustCheckerCatchesBreaches shows that checkDocument reports each
// breach it stands for, and nothing on a document that keeps the rules.
func TestJSONAPIMustCheckerCatchesBreaches(t *testing.T) {
	t.Parallel()
	const (
		account = `{"type":"accounts","id":"1","attributes":{"name":"A"},"relationships":{"owner":{"data":{"type":"users","id":"5"}}}}`
		user    = `{"type":"users","id":"5","attributes":{"username":"u"}}`
	)
	cases := []struct {
		name, body, query, contentType string
		want                           primaryKind
		breach                         bool
	}{
		{name: "a compound document that keeps the rules", body: `{"data":[` + account + `],"included":[` + user + `]}`, query: "include=owner", want: array},
		{name: "an error document that keeps the rules", body: `{"errors":[{"status":"400","title":"t","source":{"parameter":"sort"}}],"meta":{"requestId":"x"}}`},
		{name: "@-members and non-ASCII names", body: `{"data":{"type":"accounts","id":"1","@context":"x","attributes":{"größe":1,"a b":2}}}`, want: oneObject},
		{name: "a parameter in Content-Type", body: `{"data":null}`, contentType: "application/vnd.api+json; charset=utf-8", breach: true},
		{name: "a profile in Content-Type of a page by number", body: `{"data":[]}`, contentType: cursorMediaType, breach: true},
		{name: "a cursor page naming its profile", body: `{"data":[]}`, query: "page[after]=", contentType: cursorMediaType, want: array},
		{name: "a cursor page without its profile", body: `{"data":[]}`, query: "page[after]=", want: array, breach: true},
		{name: "the top level is an array", body: `[]`, breach: true},
		{name: "nothing at the top level", body: `{"links":{}}`, breach: true},
		{name: "data and errors", body: `{"data":null,"errors":[{"title":"x"}]}`, breach: true},
		{name: "included without data", body: `{"meta":{},"included":[]}`, breach: true},
		{name: "one object where an array is due", body: `{"data":` + user + `}`, want: array, breach: true},
		{name: "an array where one object is due", body: `{"data":[]}`, want: oneObject, breach: true},
		{name: "a resource where null is due", body: `{"data":` + user + `}`, want: nullData, breach: true},
		{name: "an id that is a number", body: `{"data":{"type":"users","id":5}}`, breach: true},
		{name: "an attribute named id", body: `{"data":{"type":"users","id":"5","attributes":{"id":"5"}}}`, breach: true},
		{name: "an attribute and a relationship of one name", body: `{"data":{"type":"users","id":"5","attributes":{"owner":1},"relationships":{"owner":{"data":null}}}}`, breach: true},
		{name: "an empty relationship object", body: `{"data":{"type":"users","id":"5","relationships":{"owner":{}}}}`, breach: true},
		{name: "linkage that is no identifier", body: `{"data":{"type":"users","id":"5","relationships":{"owner":{"data":{"type":"users"}}}}}`, breach: true},
		{name: "a member name with a period", body: `{"data":null,"meta":{"a.b":1}}`, breach: true},
		{name: "a member name ending in a hyphen", body: `{"data":{"type":"users","id":"5","attributes":{"name-":1}}}`, breach: true},
		{name: "a type that is no member name", body: `{"data":{"type":"user roles!","id":"5"}}`, breach: true},
		{name: "one resource twice", body: `{"data":[` + user + `,` + user + `]}`, breach: true},
		{name: "an included resource nothing links to", body: `{"data":[` + user + `],"included":[` + account + `]}`, breach: true},
		{name: "an included resource include did not ask for", body: `{"data":[` + account + `],"included":[` + user + `]}`, query: "include=referredBy", breach: true},
		{name: "a resource on an include path left out", body: `{"data":[` + account + `],"included":[]}`, query: "include=owner", breach: true},
		{name: "an included resource repeating primary data", body: `{"data":[` + user + `],"included":[` + user + `]}`, breach: true},
		{name: "an error status that is a number", body: `{"errors":[{"status":400}]}`, breach: true},
		{name: "an empty error object", body: `{"errors":[{}]}`, breach: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct = "application/vnd.api+json"
			}
			r := &result{header: http.Header{"Content-Type": {ct}}, body: []byte(tc.body)}
			_ = json.Unmarshal(r.body, &r.doc)
			q, _ := url.ParseQuery(tc.query)
			rec := &recorder{}
			checkDocument(rec, r, q, tc.want)
			if tc.breach && len(rec.errs) == 0 {
				t.Errorf("no breach reported in %s", tc.body)
			}
			if !tc.breach && len(rec.errs) > 0 {
				t.Errorf("breaches reported in a good document: %v", rec.errs)
			}
		})
	}
}
