package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// strictServer is the shape of what oapi-codegen's strict server writes: a
// model, a request object, the response interface, typed responses with
// their headers and Visit methods, a shared response of the components, and
// the interface the handlers implement.
const strictServer = `// Package p is generated.
package p

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Thing is a model.
type Thing struct{ Name string }

// Unrelated is a model whose name ends like a response: kept.
type TokenResponse struct{ Token string }

type ListThingsRequestObject struct{ Limit int }

type ListThingsResponseObject interface {
	VisitListThingsResponse(w http.ResponseWriter) error
}

type BadRequestResponseHeaders struct{ XRequestID string }

type BadRequestJSONResponse struct {
	Body    Thing
	Headers BadRequestResponseHeaders
}

type ListThings200ResponseHeaders struct{ XTotal int }

// ListThings200JSONResponse is the answer with things.
type ListThings200JSONResponse struct {
	Body    []Thing
	Headers ListThings200ResponseHeaders
}

func (response ListThings200JSONResponse) VisitListThingsResponse(w http.ResponseWriter) error {
	w.Header().Set("X-Total", fmt.Sprint(response.Headers.XTotal))
	return json.NewEncoder(w).Encode(response.Body)
}

type ListThings400JSONResponse struct{ BadRequestJSONResponse }

func (response ListThings400JSONResponse) VisitListThingsResponse(w http.ResponseWriter) error {
	return json.NewEncoder(w).Encode(response.Body)
}

type StrictServerInterface interface {
	ListThings(req ListThingsRequestObject) (ListThingsResponseObject, error)
}
`

func TestPrune(t *testing.T) {
	out, err := prune([]byte(strictServer))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if _, err := parser.ParseFile(token.NewFileSet(), "", out, 0); err != nil {
		t.Fatalf("the output does not parse: %v\n%s", err, got)
	}
	for _, gone := range []string{"ListThings200JSONResponse", "ListThings200ResponseHeaders", "ListThings400JSONResponse",
		"BadRequestJSONResponse", "BadRequestResponseHeaders", "func (response", "the answer with things",
		`"encoding/json"`, `"fmt"`} {
		if strings.Contains(got, gone) {
			t.Errorf("%s is left:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"// Package p is generated.", "// Thing is a model.", "type Thing struct",
		"type TokenResponse struct", "type ListThingsRequestObject struct", "type ListThingsResponseObject interface",
		"type StrictServerInterface interface", `"net/http"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s is gone:\n%s", kept, got)
		}
	}
}

// TestPruneKeepsWhatIsUsed: a response type something kept refers to stays.
func TestPruneKeepsWhatIsUsed(t *testing.T) {
	src := strictServer + `
// Kept refers to a shared response.
var Kept BadRequestResponseHeaders
`
	out, err := prune([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); !strings.Contains(got, "type BadRequestResponseHeaders struct") || strings.Contains(got, "type BadRequestJSONResponse struct") {
		t.Errorf("want BadRequestResponseHeaders kept (Kept uses it) and BadRequestJSONResponse gone:\n%s", got)
	}
}

// TestPruneRefusesOtherShapes: no typed response at all means oapi-codegen
// writes something genprune does not know.
func TestPruneRefusesOtherShapes(t *testing.T) {
	if _, err := prune([]byte("package p\n\ntype Thing struct{}\n")); err == nil || !strings.Contains(err.Error(), "Visit<Op>Response") {
		t.Errorf("err = %v, want a refusal naming Visit<Op>Response", err)
	}
}
