package check

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/entityapi/entityapi/openapi"
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
	for name, ops := range documentOperations(t) {
		for key, op := range ops {
			if op.kin.Operation.RequestBody != nil {
				continue // bodies: the same kin-openapi call in both; TestFuzz and the API tests send them
			}
			path := map[string]string{}
			for _, rp := range op.params {
				if rp.p.In == openapi3.ParameterInPath {
					path[rp.p.Name] = "1"
				}
				if rp.query != "" || rp.header != "" {
					skipped++
				}
			}
			for _, q := range queries {
				for _, h := range headers {
					req, query := operationRequest(op, q, h)
					input := func() *openapi3filter.RequestValidationInput {
						return &openapi3filter.RequestValidationInput{Request: req, PathParams: path, QueryParams: query,
							Route: op.kin, Options: validatorOptions}
					}
					want := openapi3filter.ValidateRequest(context.Background(), input())
					got := checkRequest(context.Background(), op, input())
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

// TestCheckRemembersOnlyWhatPassed holds Operation.Check, which passes again a
// request it has seen pass (memo.go), to kin-openapi's ValidateRequest:
// for every operation without a body, every query and header of
// TestCheckRequestAsKinOpenAPI is checked three times, the later times with
// every request before it remembered, and each verdict must be
// kin-openapi's. Failing requests that share a query string with passing
// ones (a bad header) prove the key covers the headers; a second path
// parameter value proves it covers the path.
func TestCheckRemembersOnlyWhatPassed(t *testing.T) {
	queries := []string{"", "include=country", "page[size]=10", "page[size]=abc", "sort=-id", "filter[id]=1,2",
		"filter[createdAt]=2020-01-01", "filter[createdAt]=yesterday", "page[number]=2&page[size]=x&sort=&include="}
	headers := []map[string]string{
		{}, {"X-Include": "totalCount"}, {"X-Localization-ID": "2"}, {"X-Localization-ID": "x"},
		{"X-Currency": "EUR"}, {"X-Currency": "?"},
	}
	ids := []string{"1", "x y"}
	remembered, compared := 0, 0
	for name, ops := range documentOperations(t) {
		for key, op := range ops {
			if op.kin.Operation.RequestBody != nil {
				continue
			}
			passedCount.Store(0) // each operation may remember up to the bound
			for pass := range 3 {
				for _, id := range ids {
					path := map[string]string{}
					for _, rp := range op.params {
						if rp.p.In == openapi3.ParameterInPath {
							path[rp.p.Name] = id
						}
					}
					for _, q := range queries {
						for _, h := range headers {
							req, query := operationRequest(op, q, h)
							want := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
								Request: req, PathParams: path, QueryParams: query, Route: op.kin, Options: validatorOptions})
							got := op.Check(context.Background(), req, path, query)
							if fmt.Sprint(got) != fmt.Sprint(want) {
								t.Fatalf("%s %s ?%s %v id %q, pass %d:\nCheck:       %v\nkin-openapi: %v", name, key, q, h, id, pass, got, want)
							}
							compared++
						}
					}
				}
			}
			remembered += len(op.passed.keys)
		}
	}
	if remembered < 1000 || compared < 10000 {
		t.Errorf("%d requests remembered, %d compared: the test proves little", remembered, compared)
	}
}

// TestCheckMemoBounds: nothing is remembered beyond maxPassed requests in
// the process, nor a key longer than maxPassedKey.
func TestCheckMemoBounds(t *testing.T) {
	op := documentOperations(t)["backoffice"]["GET /api/regions"]
	if op == nil {
		t.Fatal("no operation GET /api/regions")
	}
	long, _ := http.NewRequest(http.MethodGet, "http://x/backoffice/api/regions?filter[id]="+strings.Repeat("a", maxPassedKey), nil)
	if _, ok := op.checkKey(long, nil); ok {
		t.Error("a key longer than maxPassedKey may be remembered")
	}
	passedCount.Store(maxPassed - 1)
	defer passedCount.Store(0)
	for i := range 3 {
		q := "page[size]=" + strconv.Itoa(i+1)
		req, _ := http.NewRequest(http.MethodGet, "http://x/backoffice/api/regions?"+q, nil)
		query, _ := url.ParseQuery(q)
		if err := op.Check(context.Background(), req, nil, query); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(op.passed.keys); n != 1 || passedCount.Load() != maxPassed {
		t.Errorf("%d requests remembered (process count %d) with room for one", n, passedCount.Load())
	}
}

// documentOperations are the operations of both documents, by application,
// each by its method and path ("GET /api/regions").
func documentOperations(t *testing.T) map[string]map[string]*Operation {
	t.Helper()
	out := map[string]map[string]*Operation{}
	for name, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = map[string]*Operation{}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				kin := &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}
				out[name][method+" "+path] = NewOperation(kin, false)
			}
		}
	}
	return out
}

// operationRequest is a request of op's method to its path with query
// string q and headers h, and q parsed.
func operationRequest(op *Operation, q string, h map[string]string) (*http.Request, url.Values) {
	req, _ := http.NewRequest(op.kin.Method, "http://x"+op.kin.Path+"?"+q, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	query, _ := url.ParseQuery(q)
	return req, query
}
