package main

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	res := resources{
		"accounts": {"contacts": true, "owner": true},
		"contacts": {},
	}
	doc := []string{"JSONBody", "ApplicationVndAPIPlusJSONBody"}
	link := []string{"Body"}
	tests := []struct {
		method, path string
		bodies       []string
		want         string // the call, or a part of the error
		fails        bool
	}{
		{"GET", "/api/accounts", nil, "h.engine.List(requestOf(ctx))", false},
		{"POST", "/api/accounts", doc, "h.engine.Create(requestOf(ctx), r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody))", false},
		{"DELETE", "/api/accounts", nil, "h.engine.DeleteList(requestOf(ctx))", false},
		{"GET", "/api/accounts/{id}", nil, "h.engine.Get(requestOf(ctx))", false},
		{"PATCH", "/api/accounts/{id}", doc, "h.engine.Update(requestOf(ctx), r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody))", false},
		{"DELETE", "/api/accounts/{id}", nil, "h.engine.Delete(requestOf(ctx))", false},
		{"GET", "/api/accounts/{id}/owner", nil, "h.engine.Related(requestOf(ctx))", false},
		{"GET", "/api/accounts/{id}/contacts", nil, "h.engine.Related(requestOf(ctx))", false},
		{"GET", "/api/accounts/{id}/relationships/contacts", nil, "h.engine.Relationship(requestOf(ctx))", false},
		{"PATCH", "/api/accounts/{id}/relationships/owner", link, "h.engine.UpdateRelationship(requestOf(ctx), r.Body)", false},
		{"POST", "/api/accounts/{id}/relationships/contacts", link, "h.engine.AddToRelationship(requestOf(ctx), r.Body)", false},
		{"DELETE", "/api/accounts/{id}/relationships/contacts", link, "h.engine.RemoveFromRelationship(requestOf(ctx), r.Body)", false},

		// Unknown shapes: never guessed.
		{"POST", "/oauth2-token", nil, "not under /api/{type}", true},
		{"GET", "/api/asyncoperations/{id}", nil, `"asyncoperations" is not a resource type`, true},
		{"GET", "/api/accounts/{id}/notes", nil, "no collection, item, related resource or relationship", true},
		{"GET", "/api/accounts/{id}/relationships/notes", nil, "no collection, item, related resource or relationship", true},
		{"GET", "/api/accounts/count", nil, "no collection, item, related resource or relationship", true},
		{"GET", "/api/accounts/{id}/contacts/{contactId}", nil, "no collection, item, related resource or relationship", true},
		{"PATCH", "/api/accounts", doc, "no PATCH on collection paths", true},
		{"PUT", "/api/accounts/{id}", doc, "no PUT on item paths", true},
		{"POST", "/api/accounts/{id}/owner", link, "no POST on related paths", true},

		// Known shapes whose bodies are not what the engine call takes.
		{"POST", "/api/accounts", link, "body fields are [Body], the engine's Create takes [ApplicationVndAPIPlusJSONBody JSONBody]", true},
		{"PATCH", "/api/accounts/{id}", []string{"JSONBody"}, "the engine's Update takes", true},
		{"PATCH", "/api/accounts/{id}/relationships/owner", doc, "the engine's UpdateRelationship takes [Body]", true},
		{"GET", "/api/accounts", link, "the engine's List takes []", true},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			op := operation{ID: "op", Method: tt.method, Path: tt.path, Bodies: tt.bodies}
			c, err := classify(op, res)
			switch {
			case tt.fails && err == nil:
				t.Fatalf("classified as %s, want an error containing %q", c.expr(), tt.want)
			case tt.fails && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q, want one containing %q", err, tt.want)
			case tt.fails && !strings.Contains(err.Error(), "op ("+tt.method+" "+tt.path+")"):
				t.Fatalf("error %q does not name the operation", err)
			case !tt.fails && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case !tt.fails && c.expr() != tt.want:
				t.Fatalf("call %s, want %s", c.expr(), tt.want)
			}
		})
	}
}
