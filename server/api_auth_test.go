package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
)

// documentedOperation is one operation of the public document, with an address
// built from its path parameters' examples.
type documentedOperation struct {
	method, path, id string
	body             bool
	public           bool
	// mediaType is the JSON:API media type of its body: the plain one, or the
	// atomic extension's on POST /api/operations.
	mediaType string
}

// headers are the JSON:API request headers of the operation's media type.
func (op documentedOperation) headers(auth string) map[string]string {
	return map[string]string{"Accept": op.mediaType, "Content-Type": op.mediaType, "Authorization": auth}
}

var pathParameter = regexp.MustCompile(`\{[^}]+\}`)

// documentedOperations lists every operation of the back-office document.
func documentedOperations(t *testing.T) []documentedOperation {
	t.Helper()
	doc := backofficeDocument(t)
	var out []documentedOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			example := "1"
			for _, p := range append(item.Parameters, op.Parameters...) {
				if p.Value.In == "path" && p.Value.Example != nil {
					example = fmt.Sprint(p.Value.Example)
				}
			}
			mediaType := "application/vnd.api+json"
			if op.RequestBody != nil && op.RequestBody.Value.Content[atomicType] != nil {
				mediaType = atomicType
			}
			out = append(out, documentedOperation{method: method, path: "/admin" + pathParameter.ReplaceAllString(path, example),
				id: op.OperationID, body: op.RequestBody != nil, public: op.Security != nil && len(*op.Security) == 0, mediaType: mediaType})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// backofficeDocument is the served back-office document.
func backofficeDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Backoffice)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// backofficeRegistry is the resources of the served back-office document.
func backofficeRegistry(t *testing.T) *resource.Registry {
	t.Helper()
	reg, err := resource.Load(backofficeDocument(t))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestEveryOperationNeedsAToken calls every operation of the public document
// without a token, with a malformed one and with one in the query string.
func TestEveryOperationNeedsAToken(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, op := range documentedOperations(t) {
			if op.public {
				continue
			}
			t.Run(op.id, func(t *testing.T) {
				body := ""
				if op.body {
					body = `{"data":{}}`
				}
				for name, auth := range map[string]string{"none": "", "malformed": "Bearer not-a-jwt", "basic": "Basic YWRtaW46YWRtaW4="} {
					r := a.do(op.method, op.path, op.headers(auth), body).want(t, http.StatusUnauthorized)
					if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("%s: WWW-Authenticate = %q", name, r.header.Get("WWW-Authenticate"))
					}
					if get(r.doc, "errors/0/status") != "401" {
						t.Errorf("%s: %s", name, r.body)
					}
				}
				sep := "?"
				if strings.Contains(op.path, "?") {
					sep = "&"
				}
				a.do(op.method, op.path+sep+"access_token="+a.token("admin"), op.headers(""), body).want(t, http.StatusUnauthorized)
			})
		}
	})
}

func TestTokenInTheBody(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		noHeader := map[string]string{"Authorization": "", "Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json"}
		r := a.do(http.MethodPost, "/admin/api/accounts", noHeader,
			`{"data":{"type":"accounts","attributes":{"name":"Body token"}},"access_token":"`+a.token("admin")+`"}`).want(t, 201)
		if get(r.doc, "data/attributes/name") != "Body token" {
			t.Errorf("%s", r.body)
		}
		a.do(http.MethodPost, "/admin/api/accounts", map[string]string{"Authorization": "", "Content-Type": "application/json"},
			`{"name":"Plain","access_token":"`+a.token("admin")+`"}`).want(t, 401)
	})
}

func TestRoles(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Roles"}}}`)
		user := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"rolecheck","email":"rc@example.com","firstName":"R","lastName":"C"}}}`)
		viewer, manager := a.caller("viewer"), a.caller("manager")
		type roleCase struct {
			who    *api
			method string
			path   string
			body   string
			status int
		}
		for _, tc := range []roleCase{
			{viewer, http.MethodGet, "/admin/api/accounts/" + acc, "", 200},
			{viewer, http.MethodPost, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"No"}}}`, 403},
			{viewer, http.MethodPatch, "/admin/api/accounts/" + acc, `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"No"}}}`, 403},
			{viewer, http.MethodDelete, "/admin/api/accounts/" + acc, "", 403},
			{viewer, http.MethodDelete, "/admin/api/accounts?filter[id]=" + acc, "", 403},
			{viewer, http.MethodPatch, "/admin/api/accounts/" + acc + "/relationships/owner", `{"data":null}`, 403},
			{manager, http.MethodPost, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Managed"}}}`, 201},
			{manager, http.MethodPatch, "/admin/api/accounts/" + acc, `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"Managed too"}}}`, 200},
			{manager, http.MethodDelete, "/admin/api/accounts/" + acc, "", 403},
			{manager, http.MethodPost, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"m","email":"m@example.com","firstName":"M","lastName":"M"}}}`, 403},
			{manager, http.MethodPost, "/admin/api/users/" + user + "/relationships/userRoles", `{"data":[{"type":"userroles","id":"ROLE_ADMINISTRATOR"}]}`, 403},
			{manager, http.MethodPatch, "/admin/api/organizations/1", `{"data":{"type":"organizations","id":"1","attributes":{"name":"Mine"}}}`, 403},
			{manager, http.MethodPost, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Sneaky"},"relationships":{"owner":{"data":{"type":"users","id":"new"}}}},
				"included":[{"type":"users","id":"new","attributes":{"username":"sneaky","email":"s@example.com","firstName":"S","lastName":"S"}}]}`, 403},
			{a, http.MethodDelete, "/admin/api/accounts/" + acc, "", 204},
		} {
			r := tc.who.do(tc.method, tc.path, jsonAPI, tc.body)
			if r.status != tc.status {
				t.Errorf("%s %s %s: %d, want %d\n%s", tc.who.as, tc.method, tc.path, r.status, tc.status, r.body)
			}
			if tc.status == 403 && get(r.doc, "errors/0/title") != "access denied exception" {
				t.Errorf("403 body: %s", r.body)
			}
		}
	})
}

// TestOtherOrganizationsDoNotExist: what one organization has, another's
// administrator can neither see nor touch, on every resource.
func TestOtherOrganizationsDoNotExist(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		bu := a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Main unit"}}}`)
		contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Mainer"}}}`)
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Main account"},
			"relationships":{"contacts":{"data":[{"type":"contacts","id":"`+contact+`"}]}}}}`)
		user := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"mainuser","email":"mu@example.com","firstName":"M","lastName":"U"}}}`)
		tax := a.created(t, "/admin/api/taxjurisdictions", `{"data":{"type":"taxjurisdictions","attributes":{"code":"MAIN"},
			"relationships":{"country":{"data":{"type":"countries","id":"US"}}}}}`)
		a.created(t, "/admin/api/weightunits", `{"data":{"type":"weightunits","id":"mainunit"}}`)
		other := a.caller("elsewhere-admin")
		records := map[string]string{"businessunits": bu, "contacts": contact, "accounts": acc, "users": user, "taxjurisdictions": tax, "weightunits": "mainunit", "organizations": "1"}
		for typ, id := range records {
			other.do(http.MethodGet, "/admin/api/"+typ+"/"+id, jsonAPI, "").want(t, 404)
			r := other.do(http.MethodGet, "/admin/api/"+typ+"?filter[id]="+id, jsonAPI, "").want(t, 200)
			if get(r.doc, "data/0") != nil {
				t.Errorf("%s %s is listed for another organization: %s", typ, id, r.body)
			}
			if typ != "organizations" {
				other.do(http.MethodPatch, "/admin/api/"+typ+"/"+id, jsonAPI, `{"data":{"type":"`+typ+`","id":"`+id+`"}}`).want(t, 404)
				other.do(http.MethodDelete, "/admin/api/"+typ+"/"+id, jsonAPI, "").want(t, 404)
				r := other.do(http.MethodDelete, "/admin/api/"+typ+"?filter[id]="+id, map[string]string{"Accept": "application/vnd.api+json", "X-Include": "deletedCount"}, "").want(t, 204)
				if r.header.Get("X-Include-Deleted-Count") != "0" {
					t.Errorf("%s: deleted %s of another organization", typ, r.header.Get("X-Include-Deleted-Count"))
				}
			}
		}
		other.do(http.MethodGet, "/admin/api/accounts/"+acc+"/contacts", jsonAPI, "").want(t, 404)
		other.do(http.MethodGet, "/admin/api/accounts/"+acc+"/relationships/contacts", jsonAPI, "").want(t, 404)
		own := other.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Elsewhere account"}}}`)
		r := other.do(http.MethodPatch, "/admin/api/accounts/"+own+"/relationships/contacts", jsonAPI, `{"data":[{"type":"contacts","id":"`+contact+`"}]}`).want(t, 404)
		if get(r.doc, "errors/0/title") != "not found http exception" || get(r.doc, "errors/0/source/pointer") != "/data/0" {
			t.Errorf("linking another organization's contact: %s", r.body)
		}
		r = other.do(http.MethodGet, "/admin/api/contacts?filter[accounts]="+acc, jsonAPI, "").want(t, 200)
		if get(r.doc, "data/0") != nil {
			t.Errorf("filtering through another organization's account: %s", r.body)
		}
		a.do(http.MethodGet, "/admin/api/accounts/"+acc+"?include=contacts", jsonAPI, "").want(t, 200)
	})
}

// TestStorefrontTokensAreRefused: a storefront token is not for the back office.
func TestStorefrontTokensAreRefused(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		h, err := secret.Hash("shop-secret")
		if err != nil {
			t.Fatal(err)
		}
		if err := authstore.New(a.store).CreateClient(context.Background(), &authstore.Client{ID: "shop", OrganizationID: 1, SecretHash: h,
			App: authstore.AppStorefront, Name: "shop", Enabled: true}); err != nil {
			t.Fatal(err)
		}
		res, err := http.Post(a.base+"/oauth2-token", "application/json",
			strings.NewReader(`{"grant_type":"client_credentials","client_id":"shop","client_secret":"shop-secret"}`))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		tok := jsonField(raw, "access_token")
		if res.StatusCode != 200 || tok == "" {
			t.Fatalf("storefront token: %d %s", res.StatusCode, raw)
		}
		r := a.do(http.MethodGet, "/admin/api/countries", map[string]string{"Accept": "application/vnd.api+json", "Authorization": "Bearer " + tok}, "").want(t, 401)
		if get(r.doc, "errors/0/detail") == nil {
			t.Errorf("401 without a reason: %s", r.body)
		}
	})
}

// TestRolesOnEveryWriteOperation holds every write operation of the public
// document to the roles table of docs/decisions.md §8: a user writes nothing; a
// manager creates and edits business units, accounts, contacts, weight units
// and tax jurisdictions, and deletes nothing. The table is written here, not
// read from the documents' x-entityapi managed, so a marker lost or added by
// mistake fails; a type it does not list (an entity added since) is held to
// its document's marker instead.
func TestRolesOnEveryWriteOperation(t *testing.T) {
	managed := map[string]bool{"businessunits": true, "accounts": true, "contacts": true, "weightunits": true, "taxjurisdictions": true,
		"asyncoperations": true, // a manager cancels the operations it started
		"users":           false, "organizations": false}
	reg := backofficeRegistry(t)
	for _, typ := range reg.Types() {
		if _, listed := managed[typ]; !listed {
			res, _ := reg.Get(typ)
			managed[typ] = res.Managed
		}
	}
	eachAPI(t, func(t *testing.T, a *api) {
		viewer, manager := a.caller("viewer"), a.caller("manager")
		for _, op := range documentedOperations(t) {
			if op.public || op.method == http.MethodGet || op.mediaType == atomicType {
				continue // an atomic request's operations have their roles each: TestAtomicAccess
			}
			typ := strings.Split(strings.TrimPrefix(op.path, "/admin/api/"), "/")[0]
			t.Run(op.id, func(t *testing.T) {
				body := ""
				if op.body {
					body = `{"data":{}}`
				}
				r := viewer.do(op.method, op.path, jsonAPI, body).want(t, http.StatusForbidden)
				if get(r.doc, "errors/0/title") != "access denied exception" {
					t.Errorf("viewer: %s", r.body)
				}
				r = manager.do(op.method, op.path, jsonAPI, body)
				relationship := strings.Contains(op.path, "/relationships/")
				mayWrite := managed[typ] && (op.method != http.MethodDelete || relationship) // removing members is an edit
				if mayWrite == (r.status == http.StatusForbidden) {
					t.Errorf("manager: %s %s answered %d (may write: %v)\n%s", op.method, op.path, r.status, mayWrite, r.body)
				}
			})
		}
	})
}
