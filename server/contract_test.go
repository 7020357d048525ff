package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/openapi/openapitest"
)

// contract validates every response the tests receive: against the public
// OpenAPI document when the route is documented (status included), and against the
// JSON:API project's schema when the body is JSON:API. It counts what it checked.
type contract struct {
	routers []routers.Router // one per application document: the back office, the storefront
	jsonapi *jsonschema.Schema
	mu      sync.Mutex
	checked int
	covered map[string]int // "operationId status media type" -> responses
}

var contractOnce = sync.OnceValues(func() (*contract, error) {
	var rs []routers.Router
	for _, raw := range [][]byte{openapi.Backoffice, openapi.Storefront} {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			return nil, err
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			return nil, err
		}
		rs = append(rs, router)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	raw, err := os.ReadFile("testdata/jsonapi/schema.json")
	if err != nil {
		return nil, err
	}
	var schemaDoc map[string]any
	if err := json.Unmarshal(raw, &schemaDoc); err != nil {
		return nil, err
	}
	// The file names draft 2020-12 but is written in draft-07 (definitions).
	schemaDoc["$schema"] = "http://json-schema.org/draft-07/schema#"
	if err := c.AddResource("jsonapi.json", schemaDoc); err != nil {
		return nil, err
	}
	sch, err := c.Compile("jsonapi.json")
	if err != nil {
		return nil, err
	}
	return &contract{routers: rs, jsonapi: sch, covered: map[string]int{}}, nil
})

// check validates one response; it fails the test on any violation.
func (k *contract) check(t testing.TB, req *http.Request, reqBody []byte, res *http.Response, body []byte) {
	t.Helper()
	mediaType := strings.TrimSpace(strings.Split(res.Header.Get("Content-Type"), ";")[0])
	if mediaType == "application/vnd.api+json" && len(body) > 0 && strings.Contains(res.Header.Get("Content-Type"), "ext=") {
		k.checkAtomicResults(t, body)
	} else if mediaType == "application/vnd.api+json" && len(body) > 0 {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("response is not JSON: %v\n%s", err, body)
		}
		if err := k.jsonapi.Validate(v); err != nil {
			t.Fatalf("response breaks the JSON:API schema: %v\n%s", err, body)
		}
	}
	checkRequestID(t, res, mediaType, body)
	var (
		route  *routers.Route
		params map[string]string
		err    error
	)
	for _, router := range k.routers {
		if route, params, err = router.FindRoute(req); err == nil {
			break
		}
	}
	if err != nil {
		return // not a documented operation: its own tests assert it
	}
	if err := openapitest.CheckResponse(context.Background(), route, params, req, reqBody, res, body); err != nil {
		t.Fatalf("%s %s: response %d breaks the document: %v\n%s", req.Method, req.URL, res.StatusCode, err, body)
	}
	k.mu.Lock()
	k.checked++
	app := "backoffice"
	if !strings.HasPrefix(route.Spec.Servers[0].URL, "/admin") {
		app = "storefront"
	}
	k.covered[fmt.Sprintf("%s:%s %d %s", app, route.Operation.OperationID, res.StatusCode, mediaType)]++
	k.mu.Unlock()
}

// report prints how many responses were validated, how many of the documented
// operations they covered, and which combinations they covered.
func (k *contract) report() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.checked == 0 {
		return
	}
	keys := make([]string, 0, len(k.covered))
	for key := range k.covered {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	documented, err := contractOperations()
	if err != nil {
		fmt.Printf("contract: counting the documented operations: %v\n", err)
		return
	}
	covered, succeeded := map[string]bool{}, map[string]bool{} // any status; a 2xx status
	for _, key := range keys {
		f := strings.Fields(key) // "app:operationId status media type"
		covered[f[0]] = true
		if strings.HasPrefix(f[1], "2") {
			succeeded[f[0]] = true
		}
	}
	var missing, no2xx []string
	for _, op := range documented {
		if !covered[op] {
			missing = append(missing, op)
		} else if !succeeded[op] {
			no2xx = append(no2xx, op)
		}
	}
	summary := fmt.Sprintf("contract: %d responses validated against the public documents, covering %d of %d operations (%d with a 2xx response), %d operation x status x media type combinations",
		k.checked, len(documented)-len(missing), len(documented), len(succeeded), len(keys))
	fmt.Println(summary + ":")
	// go test shows a passing package's output only with -v: `make test`
	// names a file here and prints the summary after the run.
	if path := os.Getenv("CONTRACT_SUMMARY"); path != "" {
		_ = os.WriteFile(path, []byte(summary+"\n"), 0o644)
	}
	for _, key := range keys {
		fmt.Printf("  %-60s %d\n", key, k.covered[key])
	}
	if len(missing) > 0 {
		fmt.Printf("contract: operations with no validated response: %s\n", strings.Join(missing, ", "))
	}
	if len(no2xx) > 0 {
		fmt.Printf("contract: operations with no validated 2xx response: %s\n", strings.Join(no2xx, ", "))
	}
}

// checkAtomicResults holds the answer of an atomic request (the Atomic
// Operations extension, whose atomic:results the base JSON:API schema does not
// know) to that schema result by result: each data is validated as the
// primary data of a document of its own.
func (k *contract) checkAtomicResults(t testing.TB, body []byte) {
	t.Helper()
	var doc struct {
		Results []map[string]json.RawMessage `json:"atomic:results"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("atomic answer is not JSON: %v\n%s", err, body)
	}
	for i, r := range doc.Results {
		data, ok := r["data"]
		if !ok {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"data":` + string(data) + `}`)))
		if err != nil {
			t.Fatalf("atomic result %d is not JSON: %v", i, err)
		}
		if err := k.jsonapi.Validate(v); err != nil {
			t.Fatalf("atomic result %d breaks the JSON:API schema: %v\n%s", i, err, data)
		}
	}
}

// contractOperations lists the operations of the two public documents as
// "app:operationId", named as check names them, sorted.
func contractOperations() ([]string, error) {
	var ops []string
	for app, raw := range map[string][]byte{"backoffice": openapi.Backoffice, "storefront": openapi.Storefront} {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			return nil, err
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				id := op.OperationID
				if id == "" {
					id = method + " " + path
				}
				ops = append(ops, app+":"+id)
			}
		}
	}
	sort.Strings(ops)
	return ops, nil
}

// checkRequestID holds every response the suite receives to docs/decisions.md §3: an
// X-Request-ID header, and a JSON:API error document carrying the same id as
// meta.requestId, so that a client can quote either to support.
func checkRequestID(t testing.TB, res *http.Response, mediaType string, body []byte) {
	t.Helper()
	id := res.Header.Get("X-Request-ID")
	if id == "" {
		t.Fatalf("%s %s: response %d without X-Request-ID", res.Request.Method, res.Request.URL, res.StatusCode)
	}
	if mediaType == "application/vnd.api+json" && res.StatusCode >= 400 && res.Request.Method != http.MethodHead {
		if got := jsonMeta(body); got != id {
			t.Fatalf("%s %s: error document with meta.requestId %q, want the X-Request-ID %q\n%s", res.Request.Method, res.Request.URL, got, id, body)
		}
	}
}
