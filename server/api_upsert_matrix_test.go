package server_test

import (
	"net/http"
	"testing"
)

// TestUpsertOnEveryCriterion: for every upsert criterion of every resource, an
// upsert creates once and then updates, and the common mistakes are refused.
func TestUpsertOnEveryCriterion(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		country := `"relationships":{"country":{"data":{"type":"countries","id":"US"}}}`
		for _, tc := range []struct {
			typ, criterion, attrs, extra, id string
		}{
			{"accounts", "externalId", `{"name":"M","externalId":"MX-1"}`, "", ""},
			{"accounts", "name", `{"name":"Matrix name"}`, "", ""},
			{"contacts", "externalId", `{"lastName":"M","externalId":"MX-2"}`, "", ""},
			{"contacts", "primaryEmail", `{"lastName":"M","primaryEmail":"mx@example.com"}`, "", ""},
			{"users", "username", `{"username":"mx","email":"mx1@example.com","firstName":"M","lastName":"X"}`, "", ""},
			{"users", "email", `{"username":"mx2","email":"mx2@example.com","firstName":"M","lastName":"X"}`, "", ""},
			{"taxjurisdictions", "code", `{"code":"MX"}`, "," + country, ""},
			{"weightunits", "id", `{"conversionRates":{"g":1}}`, "", "mx"},
		} {
			t.Run(tc.typ+" by "+tc.criterion, func(t *testing.T) {
				id := ""
				if tc.id != "" {
					id = `"id":"` + tc.id + `",`
				}
				body := func(meta string) string {
					return `{"data":{"type":"` + tc.typ + `",` + id + `"meta":{"upsert":` + meta + `},"attributes":` + tc.attrs + tc.extra + `}}`
				}
				path := "/admin/api/" + tc.typ
				first := a.do(http.MethodPost, path, jsonAPI, body(`["`+tc.criterion+`"]`)).want(t, 201)
				again := a.do(http.MethodPost, path, jsonAPI, body(`["`+tc.criterion+`"]`)).want(t, 200)
				if get(first.doc, "data/id") != get(again.doc, "data/id") {
					t.Errorf("the second upsert did not update the first record: %v, %v", get(first.doc, "data/id"), get(again.doc, "data/id"))
				}
				for _, bad := range []string{`["nothing"]`, `false`, `[]`, `["createdAt"]`} {
					r := a.do(http.MethodPost, path, jsonAPI, body(bad)).want(t, 400)
					if get(r.doc, "errors/0/title") != "value constraint" || get(r.doc, "errors/0/source/pointer") != "/data/meta/upsert" {
						t.Errorf("%s: %s", bad, r.body)
					}
				}
			})
		}
	})
}
