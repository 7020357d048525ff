package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// The MUSTs of JSON:API 1.1 (and of the Atomic Operations extension and the
// cursor-pagination profile) that no other test shows, through the real
// server on every test database: here the documents, links, negotiation
// and query parameters; the writes, atomic results and cursor pages in
// api_jsonapi_musts_writes_test.go; the document checker in
// api_jsonapi_musts_shape_test.go. docs/jsonapi-conformance.md lists every
// MUST with the test that shows it (or, for a departure, the test of what
// the service does instead).

// mustCase is one request, the status it must get, and what its answer must
// hold besides.
type mustCase struct {
	name         string
	method, path string            // GET when method is empty
	headers      map[string]string // jsonAPI when nil
	body         string
	status       int
	primary      primaryKind // the primary data the address answers
	checks       []check
	// pointerInBody: errors/0/source/pointer names a value of the request body.
	pointerInBody bool
	also          func(t *testing.T, r *result) // further checks
}

// runMustCases sends each case as its own subtest and holds every JSON:API
// answer to checkDocument.
func runMustCases(t *testing.T, a *api, cases []mustCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := *a
			sub.t = t
			method, h := tc.method, tc.headers
			if method == "" {
				method = http.MethodGet
			}
			if h == nil {
				h = jsonAPI
			}
			r := sub.do(method, tc.path, h, tc.body).want(t, tc.status)
			if strings.HasPrefix(r.header.Get("Content-Type"), "application/vnd.api+json") {
				u, _ := url.Parse(tc.path)
				checkDocument(t, r, u.Query(), tc.primary)
			}
			for _, c := range tc.checks {
				c.verify(t, r)
			}
			if tc.pointerInBody {
				p, _ := r.value("errors/0/source/pointer").(string)
				if p == "" || !pointerExists(tc.body, p) {
					t.Errorf("source.pointer %q names no value of the request %s", p, tc.body)
				}
			}
			if tc.also != nil {
				tc.also(t, r)
			}
		})
	}
}

// linked is a small set of related records: an account with an owner and a
// contact, an account with nothing related, a tax jurisdiction.
type linked struct {
	unit, user, contact, other, account, empty, tax string
}

func seedLinked(t *testing.T, a *api) linked {
	t.Helper()
	var d linked
	d.unit = a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Musts"}}}`)
	d.user = a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"musts","email":"musts@example.com","firstName":"M","lastName":"Ust"},
		"relationships":{"owner":{"data":{"type":"businessunits","id":"`+d.unit+`"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}}`)
	d.contact = a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Must"},
		"relationships":{"owner":{"data":{"type":"users","id":"`+d.user+`"}}}}}`)
	d.other = a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Other"}}}`)
	d.account = a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Musts","externalId":"M-1"},
		"relationships":{"owner":{"data":{"type":"users","id":"`+d.user+`"}},"contacts":{"data":[{"type":"contacts","id":"`+d.contact+`"}]},
		"defaultContact":{"data":{"type":"contacts","id":"`+d.contact+`"}}}}}`)
	d.empty = a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Alone"}}}`)
	d.tax = a.created(t, "/admin/api/taxjurisdictions", `{"data":{"type":"taxjurisdictions","attributes":{"code":"MUST"},
		"relationships":{"country":{"data":{"type":"countries","id":"US"}},"region":{"data":{"type":"regions","id":"US-NY"}}}}}`)
	return d
}

// TestJSONAPIMustDocumentStructure holds answers of every kind (records,
// lists, compound documents, subresources, relationships, errors, both
// applications) to the document rules of checkDocument, and to the primary
// data their address must answer: one object, null, or an array even of one
// or no element.
func TestJSONAPIMustDocumentStructure(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		d := seedLinked(t, a)
		acc, empty := "/admin/api/accounts/"+d.account, "/admin/api/accounts/"+d.empty
		runMustCases(t, a, []mustCase{
			{name: "one record", path: acc, status: 200, primary: oneObject},
			{name: "one record with everything related", path: acc + "?include=contacts,defaultContact,organization,owner,referredBy", status: 200, primary: oneObject},
			{name: "a list with nested includes", path: "/admin/api/accounts?include=contacts.owner.owner,owner.userRoles", status: 200, primary: array},
			{name: "a list with an include repeating the primary type", path: "/admin/api/contacts?include=accounts.contacts", status: 200, primary: array},
			{name: "an empty collection", path: "/admin/api/accounts?filter[name]=Nobody", status: 200, primary: array,
				checks: []check{{path: "data/0", absent: true}}},
			{name: "a collection of one", path: "/admin/api/accounts?filter[id]=" + d.account, status: 200, primary: array,
				checks: []check{{path: "data/0/id", want: d.account}, {path: "data/1", absent: true}}},
			{name: "an empty to-many subresource", path: empty + "/contacts", status: 200, primary: array},
			{name: "a to-many subresource", path: acc + "/contacts?include=owner", status: 200, primary: array},
			{name: "an empty to-one subresource", path: empty + "/owner", status: 200, primary: nullData},
			{name: "a to-one subresource", path: acc + "/owner?include=owner", status: 200, primary: oneObject},
			{name: "a to-many relationship", path: acc + "/relationships/contacts", status: 200, primary: array},
			{name: "an empty to-many relationship", path: empty + "/relationships/contacts", status: 200, primary: array},
			{name: "a to-one relationship", path: acc + "/relationships/owner", status: 200, primary: oneObject},
			{name: "an empty to-one relationship", path: empty + "/relationships/owner", status: 200, primary: nullData},
			{name: "sparse fieldsets with include", path: "/admin/api/accounts?include=owner&fields[accounts]=name&fields[users]=username", status: 200, primary: array},
			{name: "read-only catalogues", path: "/admin/api/regions?filter[country]=DE&include=country", status: 200, primary: array},
			{name: "the storefront", path: "/api/countries/DE?include=regions", headers: guest, status: 200, primary: oneObject},
			{name: "a create with included records", method: http.MethodPost, path: "/admin/api/accounts", status: 201, primary: oneObject,
				body: `{"data":{"type":"accounts","attributes":{"name":"Compound"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"n"}]}}},
				"included":[{"type":"contacts","id":"n","attributes":{"lastName":"New"}}]}`},
			{name: "an update", method: http.MethodPatch, path: acc, status: 200, primary: oneObject,
				body: `{"data":{"type":"accounts","id":"` + d.account + `","attributes":{"name":"Musts"}}}`},
			{name: "a 404", path: "/admin/api/accounts/999999", status: 404},
			{name: "a 400", path: "/admin/api/accounts?filter[nothing]=1", status: 400},
			{name: "a 403", method: http.MethodPatch, path: "/admin/api/countries/US", status: 403, body: `{"data":{"type":"countries","id":"US"}}`},
			{name: "a 405", method: http.MethodPost, path: "/admin/api/countries", status: 405, body: `{"data":{"type":"countries","id":"XX"}}`},
			{name: "a 406", path: acc, headers: map[string]string{"Accept": "application/vnd.api+json; charset=utf-8"}, status: 406},
			{name: "a 415", method: http.MethodPost, path: "/admin/api/accounts", body: `{}`,
				headers: map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json; charset=utf-8"}, status: 415},
		})
		// Every list of the back office, with every relationship of its type
		// included: a compound document, or a 400 naming include where the
		// endpoint does not take it.
		reg := backofficeRegistry(t)
		for _, op := range documentedOperations(t) {
			typ := strings.TrimPrefix(op.path, "/admin/api/")
			res, ok := reg.Get(typ)
			if op.method != http.MethodGet || strings.Contains(typ, "/") || !ok || len(res.Relationships) == 0 {
				continue
			}
			var names []string
			for _, rel := range res.Relationships {
				names = append(names, rel.Name)
			}
			path := op.path + "?include=" + strings.Join(names, ",")
			t.Run(op.id, func(t *testing.T) {
				sub := *a
				sub.t = t
				r := sub.do(http.MethodGet, path, jsonAPI, "")
				switch r.status {
				case http.StatusOK:
					u, _ := url.Parse(path)
					checkDocument(t, r, u.Query(), array)
				case http.StatusBadRequest:
					if r.value("errors/0/source/parameter") != "include" {
						t.Errorf("%s: 400 without source.parameter include\n%s", path, r.body)
					}
				default:
					t.Errorf("%s: status %d\n%s", path, r.status, r.body)
				}
			})
		}
	})
}

// TestJSONAPIMustFollowLinks follows every link of records of several types:
// the top-level self link answers, the resource's self link answers the
// resource, a relationship's
// self link answers its linkage and its related link the related resources
// (null or an empty array when the relationship is empty), a related link
// does not change when the relationship's content does, and a relationship
// of a record that does not exist is a 404.
func TestJSONAPIMustFollowLinks(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		d := seedLinked(t, a)
		for _, path := range []string{"/admin/api/accounts/" + d.account, "/admin/api/accounts/" + d.empty, "/admin/api/contacts/" + d.contact,
			"/admin/api/users/" + d.user, "/admin/api/taxjurisdictions/" + d.tax, "/admin/api/regions/US-NY"} {
			t.Run(path, func(t *testing.T) {
				sub := *a
				sub.t = t
				followLinks(t, &sub, path)
			})
		}
		related := func() any {
			return a.do(http.MethodGet, "/admin/api/accounts/"+d.account, jsonAPI, "").want(t, 200).value("data/relationships/contacts/links/related")
		}
		before := related()
		a.do(http.MethodPost, "/admin/api/accounts/"+d.account+"/relationships/contacts", jsonAPI,
			`{"data":[{"type":"contacts","id":"`+d.other+`"}]}`).want(t, 204)
		if after := related(); after != before || after == nil {
			t.Errorf("related link %v became %v when the relationship changed", before, after)
		}
		runMustCases(t, a, []mustCase{
			{name: "relationship of a record that does not exist", path: "/admin/api/accounts/999999/relationships/contacts", status: 404},
			{name: "relationship that does not exist", path: "/admin/api/accounts/" + d.account + "/relationships/friends", status: 404},
		})
	})
}

// followLinks reads path and follows its links.
func followLinks(t *testing.T, a *api, path string) {
	t.Helper()
	follow := func(link any) *result {
		s, _ := link.(string)
		if !strings.HasPrefix(s, a.base+"/") {
			t.Fatalf("link %v is not an address of the server", link)
		}
		return a.do(http.MethodGet, strings.TrimPrefix(s, a.base), jsonAPI, "").want(t, 200)
	}
	r := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
	me := identity(r.doc["data"].(map[string]any))
	// The top-level self link is the list's address (oro-behaviour §13): it
	// must answer; the resource's own self link answers the resource.
	follow(r.value("links/self"))
	if got, _ := follow(r.value("data/links/self")).value("data").(map[string]any); got == nil || identity(got) != me {
		t.Errorf("the self link of %s answers %v, want the resource", me, got)
	}
	rels, _ := r.value("data/relationships").(map[string]any)
	if len(rels) == 0 {
		t.Fatalf("%s has no relationships to follow", me)
	}
	for name, v := range rels {
		rel := v.(map[string]any)
		links, _ := rel["links"].(map[string]any)
		want := identities(rel["data"])
		if links["self"] != nil {
			if got := identities(follow(links["self"]).doc["data"]); !slices.Equal(got, want) {
				t.Errorf("%s %s: the relationship link answers %v, want the linkage %v", me, name, got, want)
			}
		}
		if links["related"] != nil {
			ans := follow(links["related"])
			data, present := ans.doc["data"]
			if got := identities(data); !present || !slices.Equal(got, want) {
				t.Errorf("%s %s: the related link answers %v, want %v", me, name, got, want)
			}
			if _, toMany := rel["data"].([]any); toMany {
				if _, isArray := data.([]any); !isArray {
					t.Errorf("%s %s: the related link of a to-many relationship answers %v, want an array", me, name, data)
				}
			}
		}
	}
}

// identities lists the type:id of linkage or primary data, sorted; null and
// [] are both none.
func identities(v any) []string {
	var out []string
	for _, m := range resourcesOf(v) {
		out = append(out, identity(m))
	}
	slices.Sort(out)
	return out
}

// TestJSONAPIMustNegotiation covers the server's content negotiation through
// HTTP: parameters other than ext and profile, unsupported extensions, and
// profiles, which the server must ignore when it does not know them.
func TestJSONAPIMustNegotiation(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		accept := func(v string) map[string]string { return map[string]string{"Accept": v} }
		body := func(ct string) map[string]string {
			return map[string]string{"Accept": "application/vnd.api+json", "Content-Type": ct}
		}
		create := `{"data":{"type":"accounts","attributes":{"name":"Negotiated"}}}`
		atomicOps := `{"atomic:operations":[{"op":"add","data":{"type":"accounts","attributes":{"name":"Negotiated"}}}]}`
		const profile = `; profile="https://example.com/profiles/unknown"`
		runMustCases(t, a, []mustCase{
			{name: "accept: only instances with another parameter", path: "/admin/api/countries/US",
				headers: accept("application/vnd.api+json; charset=utf-8"), status: 406},
			{name: "accept: an instance with another parameter is ignored", path: "/admin/api/countries/US",
				headers: accept("application/vnd.api+json; charset=utf-8, application/vnd.api+json"), status: 200, primary: oneObject},
			{name: "accept: only unsupported extensions", path: "/admin/api/countries/US",
				headers: accept(`application/vnd.api+json; ext="https://example.com/ext"`), status: 406},
			{name: "content type: another parameter", method: http.MethodPost, path: "/admin/api/accounts",
				headers: body("application/vnd.api+json; charset=utf-8"), body: create, status: 415},
			{name: "content type: an unsupported extension", method: http.MethodPost, path: "/admin/api/accounts",
				headers: body(`application/vnd.api+json; ext="https://example.com/ext"`), body: create, status: 415},
			{name: "the jsonapi member does not negotiate", method: http.MethodPost, path: "/admin/api/operations",
				headers: body("application/vnd.api+json"), status: 415,
				body: `{"jsonapi":{"version":"1.1","ext":["https://jsonapi.org/ext/atomic"]},` + atomicOps[1:]},
			{name: "accept: an unknown profile is ignored", path: "/admin/api/countries/US",
				headers: accept("application/vnd.api+json" + profile), status: 200, primary: oneObject,
			},
			{name: "content type: an unknown profile is ignored", method: http.MethodPost, path: "/admin/api/accounts",
				headers: body("application/vnd.api+json" + profile), body: create, status: 201, primary: oneObject,
			},
			{name: "atomic content type: an unknown profile is ignored", method: http.MethodPost, path: "/admin/api/operations",
				headers: map[string]string{"Accept": atomicType, "Content-Type": atomicType + profile}, body: atomicOps, status: 200,
			},
		})
	})
}

// TestJSONAPIMustQueryParameters: square brackets left unencoded mean what
// encoded ones do; member names in parameters are case sensitive; include
// with an empty value asks for no related resources.
func TestJSONAPIMustQueryParameters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		seedLinked(t, a)
		for _, q := range []string{
			"filter[country]=DE&sort=-name&page[size]=3&page[number]=2&include=country&fields[regions]=name,country&fields[countries]=name",
			"filter[country]=FR&sort=name&page[size]=4&page[after]=&include=country",
		} {
			raw := a.do(http.MethodGet, "/admin/api/regions?"+q, jsonAPI, "").want(t, 200)
			encoded := strings.NewReplacer("[", "%5B", "]", "%5D").Replace(q)
			enc := a.do(http.MethodGet, "/admin/api/regions?"+encoded, jsonAPI, "").want(t, 200)
			if !sameJSON(raw.doc, enc.doc) {
				t.Errorf("%s: unencoded brackets answer\n%s\nencoded ones\n%s", q, raw.body, enc.body)
			}
		}
		runMustCases(t, a, []mustCase{
			{name: "sort names are case sensitive", path: "/admin/api/accounts?sort=Name", status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "sort"}}},
			{name: "field names are case sensitive", path: "/admin/api/accounts?fields[accounts]=Name", status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "fields[accounts]"}}},
			{name: "type names are case sensitive", path: "/admin/api/accounts?fields[Accounts]=name", status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "fields[Accounts]"}}},
			{name: "relationship names are case sensitive", path: "/admin/api/accounts?include=Owner", status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "include"}}},
			{name: "an empty include asks for nothing related", path: "/admin/api/accounts?include=", status: 200, primary: array,
				also: func(t *testing.T, r *result) {
					if inc, ok := r.doc["included"].([]any); !ok || len(inc) != 0 {
						t.Errorf("included = %v, want []", r.doc["included"])
					}
				}},
		})
	})
}

// sameJSON compares the primary data, the included resources and the self
// link of two decoded documents.
func sameJSON(x, y map[string]any) bool {
	clean := func(m map[string]any) string {
		b, _ := json.Marshal([]any{m["data"], m["included"], get(m, "links/self")})
		return string(b)
	}
	return clean(x) == clean(y)
}
