package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// TestCheckRequestAsKinOpenAPI holds checkRequest to kin-openapi's
// ValidateRequest: for every operation of both documents and queries and
// headers with good, bad and absent parameters (and parameters no operation
// knows), both give the same verdict and the same errors.
func TestCheckRequestAsKinOpenAPI(t *testing.T) {
	t.Parallel()
	queries := []string{
		"", "include=country", "page[size]=10", "page[size]=abc", "page[size]=-1", "page[number]=0",
		"sort=-id", "filter[id]=1,2", "filter[id]=", "fields[regions]=name", "unknown=1", "page[size]=10&page[size]=20",
		"include=", "filter[createdAt]=2020-01-01", "filter[createdAt]=yesterday", "page[number]=2&page[size]=x&sort=&include=",
	}
	headers := []map[string]string{
		{}, {"X-Include": "totalCount"}, {"X-Include": ""}, {"X-Localization-ID": "2"}, {"X-Localization-ID": "x"},
		{"X-Currency": "EUR"}, {"X-Currency": "?"}, {"X-Include": "noHateoas;totalCount", "X-Localization-ID": "1"},
	}
	checked, skipped := 0, 0
	for name, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := resource.Load(doc)
		if err != nil {
			t.Fatal(err)
		}
		routes, err := newRouteTable(doc, reg, "/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for key, rt := range routes.byKey {
			if rt.kin.Operation.RequestBody != nil {
				continue // bodies: the same kin-openapi call in both; TestFuzz and the API tests send them
			}
			path := map[string]string{}
			for _, rp := range rt.params {
				if rp.p.In == openapi3.ParameterInPath {
					path[rp.p.Name] = "1"
				}
				if rp.query != "" || rp.header != "" {
					skipped++
				}
			}
			for _, q := range queries {
				for _, h := range headers {
					req, _ := http.NewRequest(rt.method, "http://x"+rt.pattern+"?"+q, nil)
					for k, v := range h {
						req.Header.Set(k, v)
					}
					query, _ := url.ParseQuery(q)
					input := func() *openapi3filter.RequestValidationInput {
						return &openapi3filter.RequestValidationInput{Request: req, PathParams: path, QueryParams: query,
							Route: rt.kin, Options: validatorOptions}
					}
					want := openapi3filter.ValidateRequest(context.Background(), input())
					got := checkRequest(context.Background(), rt, input())
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s %s ?%s %v:\ncheckRequest: %v\nkin-openapi:  %v", name, key, q, h, got, want)
					}
					checked++
				}
			}
		}
	}
	if skipped == 0 || checked < 1000 {
		t.Errorf("%d requests compared, %d parameters whose absence is told: the test proves little", checked, skipped)
	}
}
