package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// created posts a JSON:API document and returns the new record's id.
func (a *api) created(t *testing.T, path, body string) string {
	t.Helper()
	r := a.do(http.MethodPost, path, jsonAPI, body).want(t, 201)
	id, _ := get(r.doc, "data/id").(string)
	return id
}

func TestRelationships(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		bu := a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Sales"}}}`)
		user := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"jdoe","email":"jdoe@example.com",
			"firstName":"John","lastName":"Doe","password":"correct horse battery"},
			"relationships":{"owner":{"data":{"type":"businessunits","id":"`+bu+`"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_MANAGER"}]}}}}`)
		c1 := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"firstName":"Ann","lastName":"Lee","primaryEmail":"ann@example.com"},
			"relationships":{"owner":{"data":{"type":"users","id":"`+user+`"}}}}}`)
		c2 := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Kim"}}}`)
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Initrode"},
			"relationships":{"owner":{"data":{"type":"users","id":"`+user+`"}},"contacts":{"data":[{"type":"contacts","id":"`+c1+`"}]}}}}`)
		rel := "/admin/api/accounts/" + acc + "/relationships/contacts"
		runCases(t, a, []apiCase{
			{name: "password never answered", path: "/admin/api/users/" + user, status: 200, checks: []check{
				{path: "data/attributes/password", absent: true}, {path: "data/attributes/username", want: "jdoe"},
				{path: "data/relationships/userRoles/data/0/id", want: "ROLE_MANAGER"},
				{path: "data/relationships/organization/data/id", want: "1"}}},
			{name: "title", path: "/admin/api/users/" + user + "?metaProperties=title", status: 200, checks: []check{{path: "data/meta/title", want: "John Doe"}}},
			{name: "unknown meta", path: "/admin/api/users/" + user + "?metaProperties=color", status: 400},
			{name: "include through a join table and dotted", path: "/admin/api/accounts/" + acc + "?include=contacts,owner.owner", status: 200, checks: []check{
				{path: "data/relationships/contacts/data/0/id", want: c1}, {path: "included/0/type", want: "contacts"},
				{path: "included/1/type", want: "users"}, {path: "included/2/type", want: "businessunits"}}},
			{name: "contact sees its account", path: "/admin/api/contacts/" + c1, status: 200, checks: []check{
				{path: "data/relationships/accounts/data/0/id", want: acc}}},
			{name: "add a member", method: http.MethodPost, path: rel, body: `{"data":[{"type":"contacts","id":"` + c2 + `"}]}`, status: 204},
			{name: "both members", path: rel, status: 200, checks: []check{{path: "data/1/id", want: c2}}},
			{name: "filter any of", path: "/admin/api/accounts?filter[contacts]=" + c2, status: 200, checks: []check{{path: "data/0/id", want: acc}}},
			{name: "filter all of", path: "/admin/api/accounts?filter[contacts][contains]=" + c1 + "," + c2, status: 200, checks: []check{{path: "data/0/id", want: acc}}},
			{name: "filter none of", path: "/admin/api/accounts?filter[contacts][neq]=" + c1, status: 200, checks: []check{{path: "data/0", absent: true}}},
			{name: "remove a member", method: http.MethodDelete, path: rel, body: `{"data":[{"type":"contacts","id":"` + c1 + `"}]}`, status: 204},
			{name: "one member left", path: rel, status: 200, checks: []check{{path: "data/0/id", want: c2}, {path: "data/1", absent: true}}},
			{name: "replace members", method: http.MethodPatch, path: rel, body: `{"data":[]}`, status: 204},
			{name: "no members", path: "/admin/api/accounts/" + acc + "/contacts", status: 200, checks: []check{{path: "data/0", absent: true}}},
			{name: "member that does not exist", method: http.MethodPost, path: rel, body: `{"data":[{"type":"contacts","id":"` + c2 + `"},{"type":"contacts","id":"999999"}]}`,
				status: 404, checks: []check{{path: "errors/0/title", want: "not found http exception"}, {path: "errors/0/source/pointer", want: "/data/1"}}},
			{name: "to-one relationship replaced", method: http.MethodPatch, path: "/admin/api/accounts/" + acc + "/relationships/owner", body: `{"data":null}`, status: 204},
			{name: "to-one cleared", path: "/admin/api/accounts/" + acc + "/relationships/owner", status: 200, checks: []check{{path: "data", absent: true}}},
			{name: "inverse to-many", path: "/admin/api/businessunits/" + bu + "/relationships/users", status: 200, checks: []check{{path: "data/0/id", want: user}}},
			{name: "organization of another caller", method: http.MethodPatch, path: "/admin/api/accounts/" + acc,
				body: `{"data":{"type":"accounts","id":"` + acc + `","relationships":{"organization":{"data":{"type":"organizations","id":"2"}}}}}`, status: 404,
				checks: []check{{path: "errors/0/source/pointer", want: "/data/relationships/organization/data"}}},
			{name: "contact without information", method: http.MethodPost, path: "/admin/api/contacts",
				body: `{"data":{"type":"contacts","attributes":{"jobTitle":"CEO"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "has contact information constraint"}}},
			{name: "contact emptied by an update", method: http.MethodPatch, path: "/admin/api/contacts/" + c2,
				body: `{"data":{"type":"contacts","id":"` + c2 + `","attributes":{"lastName":null}}}`, status: 400},
			{name: "duplicate username", method: http.MethodPost, path: "/admin/api/users",
				body: `{"data":{"type":"users","attributes":{"username":"jdoe","email":"x@example.com","firstName":"X","lastName":"Y"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "unique entity constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/username"}}},
			{name: "user roles catalogue", path: "/admin/api/userroles", status: 200, checks: []check{{path: "data/0/id", want: "ROLE_ADMINISTRATOR"}}},
			{name: "string operators", path: "/admin/api/contacts?filter[lastName][starts_with]=Le&filter[primaryEmail][contains]=example", status: 200, checks: []check{
				{path: "data/0/id", want: c1}, {path: "data/1", absent: true}}},
			{name: "empty", path: "/admin/api/contacts?filter[primaryEmail][empty]=true", status: 200, checks: []check{{path: "data/0/id", want: c2}}},
			{name: "plain relationships inline", path: "/admin/api/users/" + user, headers: plain, status: 200, checks: []check{
				{path: "owner", want: float64(mustInt(bu))}, {path: "userRoles/0", want: "ROLE_MANAGER"}, {path: "organization", want: float64(1)}}},
		})
	})
}

func TestOrganizations(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		runCases(t, a, []apiCase{
			{name: "only the caller's own", path: "/admin/api/organizations", status: 200, checks: []check{
				{path: "data/0/attributes/name", want: "Main"}, {path: "data/1", absent: true}}},
			{name: "rename", method: http.MethodPatch, path: "/admin/api/organizations/1",
				body: `{"data":{"type":"organizations","id":"1","attributes":{"description":"Head office"}}}`, status: 200,
				checks: []check{{path: "data/attributes/description", want: "Head office"}}},
			{name: "another organization", path: "/admin/api/organizations/2", status: 404},
			{name: "no create", method: http.MethodPost, path: "/admin/api/organizations", body: `{"data":{"type":"organizations"}}`, status: 405},
			{name: "no delete", method: http.MethodDelete, path: "/admin/api/organizations/1", status: 405},
		})
	})
}

func mustInt(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		n = n*10 + int(c-'0')
	}
	return n
}
