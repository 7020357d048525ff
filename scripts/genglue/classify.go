package main

import (
	"fmt"
	"slices"
	"strings"
)

// operation is one operation of the strict-server interface, as the document
// and oapi-codegen's request object describe it.
type operation struct {
	ID     string   // operationId in the document
	Method string   // HTTP method, upper case
	Path   string   // path template, such as /api/accounts/{id}
	Bodies []string // the request object's body fields, as oapi-codegen named them
}

// resources says which resource types the document describes (its x-entityapi
// schemas) and the relationships of each: a path is the engine's only when it
// names them, as the engine's route table requires.
type resources map[string]map[string]bool

// shape is what an address of the generic engine points at.
type shape string

const (
	collection   shape = "collection"   // /api/{type}
	item         shape = "item"         // /api/{type}/{id}
	related      shape = "related"      // /api/{type}/{id}/{relationship}
	relationship shape = "relationship" // /api/{type}/{id}/relationships/{relationship}
)

// The request bodies the engine's writes take, by the field names oapi-codegen
// gives them: an operation taking two media types gets one field per type
// (ApplicationVndAPIPlusJSONBody for the JSON:API document, JSONBody for the
// plain JSON object), an operation taking one gets a single Body.
var (
	documentBodies = []string{"ApplicationVndAPIPlusJSONBody", "JSONBody"}
	documentArgs   = []string{"r.ApplicationVndAPIPlusJSONBody", "derefObject(r.JSONBody)"}
	linkageBodies  = []string{"Body"}
	linkageArgs    = []string{"r.Body"}
)

// action is the engine method serving one method at one shape, and the body
// fields the request object must have for it (none for reads and deletes).
type action struct {
	engine string
	bodies []string
	args   []string
}

// actions is the whole mapping from what an operation is to the engine call
// that serves it; anything outside it is not the generic pattern.
var actions = map[shape]map[string]action{
	collection: {
		"GET":    {engine: "List"},
		"POST":   {engine: "Create", bodies: documentBodies, args: documentArgs},
		"DELETE": {engine: "DeleteList"},
	},
	item: {
		"GET":    {engine: "Get"},
		"PATCH":  {engine: "Update", bodies: documentBodies, args: documentArgs},
		"DELETE": {engine: "Delete"},
	},
	related: {
		"GET": {engine: "Related"},
	},
	relationship: {
		"GET":    {engine: "Relationship"},
		"PATCH":  {engine: "UpdateRelationship", bodies: linkageBodies, args: linkageArgs},
		"POST":   {engine: "AddToRelationship", bodies: linkageBodies, args: linkageArgs},
		"DELETE": {engine: "RemoveFromRelationship", bodies: linkageBodies, args: linkageArgs},
	},
}

// call is the engine call a generated method makes.
type call struct {
	engine string
	args   []string // after the engine's request; empty when the method ignores its request object
}

// expr is the call as Go source, the receiver's engine being h.engine and the
// engine's view of the request being requestOf(ctx) (server/request.go).
func (c call) expr() string {
	return "h.engine." + c.engine + "(" + strings.Join(append([]string{"requestOf(ctx)"}, c.args...), ", ") + ")"
}

// classify decides the engine call of op from its method, its path's shape and
// its body fields; an operation outside the generic pattern is an error, never a
// guess, so that it gets a hand-written method instead.
func classify(op operation, res resources) (call, error) {
	sh, err := shapeOf(op.Path, res)
	if err != nil {
		return call{}, fmt.Errorf("%s (%s %s): %w", op.ID, op.Method, op.Path, err)
	}
	a, ok := actions[sh][op.Method]
	if !ok {
		return call{}, fmt.Errorf("%s (%s %s): the engine serves no %s on %s paths", op.ID, op.Method, op.Path, op.Method, sh)
	}
	bodies := slices.Sorted(slices.Values(op.Bodies))
	if !slices.Equal(bodies, a.bodies) {
		return call{}, fmt.Errorf("%s (%s %s): the request object's body fields are %v, the engine's %s takes %v",
			op.ID, op.Method, op.Path, bodies, a.engine, a.bodies)
	}
	return call{engine: a.engine, args: a.args}, nil
}

// shapeOf reads a path the way the engine's route table does: /api, a resource
// type, then its id, then a relationship name, plain or after "relationships".
func shapeOf(path string, res resources) (shape, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) < 2 || segs[0] != "api" {
		return "", fmt.Errorf("the path is not under /api/{type}")
	}
	rels, ok := res[segs[1]]
	if !ok {
		return "", fmt.Errorf("%q is not a resource type of the document (no x-entityapi schema)", segs[1])
	}
	param := len(segs) > 2 && strings.HasPrefix(segs[2], "{") && strings.HasSuffix(segs[2], "}")
	switch {
	case len(segs) == 2:
		return collection, nil
	case len(segs) == 3 && param:
		return item, nil
	case len(segs) == 4 && param && rels[segs[3]]:
		return related, nil
	case len(segs) == 5 && param && segs[3] == "relationships" && rels[segs[4]]:
		return relationship, nil
	}
	return "", fmt.Errorf("the path is no collection, item, related resource or relationship of %s", segs[1])
}
