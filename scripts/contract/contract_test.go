package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// collection is a Portman collection of one folder holding requests with
// the given test scripts ("" for none).
func collection(scripts ...string) []byte {
	var items []map[string]any
	for i, s := range scripts {
		it := map[string]any{"name": "r", "request": map[string]any{"method": "GET", "url": map[string]any{"path": []string{"api", "accounts", string(rune('a' + i))}}}}
		if s != "" {
			it["event"] = []any{map[string]any{"listen": "test", "script": map[string]any{"exec": strings.Split(s, "\n")}}}
		}
		items = append(items, it)
	}
	raw, _ := json.Marshal(map[string]any{"item": []any{map[string]any{"name": "accounts", "item": items}}})
	return raw
}

const (
	checkedScript   = "// Validate status 2xx \npm.test(\"[GET]::/api/accounts - Status code is 2xx\", function () {});\n// Response Validation\nconst schema = {}"
	uncheckedScript = "// Validate status 2xx \npm.test(\"x\", function () {});\n// Response Validation - Disabled due to Circular Reference\nconsole.log('GET]::/api/accounts/b response is not being validated against your spec!');"
)

// TestCheckCollection: a request whose schema check Portman disabled, or
// without tests, fails the collection, naming the request; tests on every
// request pass it.
func TestCheckCollection(t *testing.T) {
	for _, tc := range []struct {
		name  string
		raw   []byte
		wants []string // substrings of the error; none: no error
	}{
		{"every request checked", collection(checkedScript, checkedScript), nil},
		{"a schema left unchecked", collection(checkedScript, uncheckedScript),
			[]string{"1 of 2 requests", "GET /api/accounts/b: Response Validation - Disabled due to Circular Reference"}},
		{"a request without tests", collection("", checkedScript), []string{"GET /api/accounts/a: no tests"}},
		{"no requests", []byte(`{"item":[{"name":"empty","item":[]}]}`), []string{"no requests"}},
		{"not a collection", []byte(`[1,2]`), []string{"not a Postman collection"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCollection(tc.raw)
			if len(tc.wants) == 0 {
				if err != nil {
					t.Fatalf("checkCollection: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("checkCollection passed it")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("checkCollection: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// newmanReportJSON is a newman report (its json reporter) of two requests:
// an assertion failed on the first, the second's test script did not run.
const newmanReportJSON = `{"run": {
  "stats": {"requests": {"total": 2, "failed": 0}, "assertions": {"total": 7, "failed": 1}},
  "executions": [
    {"item": {"id": "i1"}, "request": {"method": "DELETE", "url": {"path": ["admin", "api", "accounts"],
      "query": [{"key": "filter[id]", "value": "1,2,3", "disabled": true}, {"key": "filter[externalId]", "value": "UMB-001"}]}},
     "response": {"code": 400, "stream": {"type": "Buffer", "data": [123, 34, 101, 34, 125]}}},
    {"item": {"id": "i2"}, "request": {"method": "POST", "url": {"path": ["admin", "api", "operations"], "query": []}},
     "response": {"code": 200, "stream": {"type": "Buffer", "data": []}}}
  ],
  "failures": [
    {"error": {"name": "AssertionError", "test": "[DELETE]::/api/accounts - Status code is 2xx", "message": "expected response code to be 2XX but found 400"},
     "at": "assertion:0 in test-script", "source": {"id": "i1", "name": "Delete the accounts matching a filter"}},
    {"error": {"name": "SyntaxError", "message": "missing ) after argument list"},
     "at": "test-script", "source": {"id": "i2", "name": "Run operations atomically"}}
  ]}}`

// TestReadReport: the counts, and each failure with the request as sent
// (enabled query parameters only) and the answer's status and body.
func TestReadReport(t *testing.T) {
	r, err := readReport([]byte(newmanReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Summary(), "2 requests, 7 assertions, 2 failed"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	want := []string{
		"[DELETE]::/api/accounts - Status code is 2xx: AssertionError: expected response code to be 2XX but found 400\n" +
			`    DELETE /admin/api/accounts?filter[externalId]=UMB-001 -> 400 {"e"}`,
		"Run operations atomically (test-script): SyntaxError: missing ) after argument list\n" +
			"    POST /admin/api/operations -> 200 ",
	}
	if strings.Join(r.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("Failures:\n%s\nwant:\n%s", strings.Join(r.Failures, "\n"), strings.Join(want, "\n"))
	}
	long := strings.Replace(newmanReportJSON, "[123, 34, 101, 34, 125]", "["+strings.Repeat("97, ", 400)+"97]", 1)
	if r, err = readReport([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.Failures[0], " -> 400 "+strings.Repeat("a", bodyShown)+"...") {
		t.Errorf("a long body is not cut at %d bytes: %s", bodyShown, r.Failures[0])
	}
	if _, err := readReport([]byte(`{"run":`)); err == nil {
		t.Error("a truncated report was taken")
	}
}
