package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/getkin/kin-openapi/openapi3"
)

// servedBy names the hand-written servers an operation's x-entityapi marker
// may name (`x-entityapi: {servedBy: auth}`): the operation is described in the
// documents but left out of code generation, because it is not a one-line
// delegation to the generic engine.
var servedBy = map[string]bool{
	"auth":   true, // the token endpoint, server/auth
	"atomic": true, // POST /api/operations (JSON:API Atomic Operations), server/atomic.go
}

// operationMarker is the x-entityapi extension of an operation: servedBy,
// or search, the types a search operation spans, which the server reads
// from the bundled document (server/engine's searchedByOperation) and so
// stays in it.
type operationMarker struct {
	ServedBy string   `json:"servedBy"`
	Search   []string `json:"search"`
}

// servedByHand lists, sorted, the ids of the operations that oapi-codegen and
// scripts/genreply leave out: those marked with x-entityapi (the marker is then
// removed, so neither bundled document carries it) and the batch operation
// (PATCH on the collection) of each resource whose x-entityapi says batch: true,
// which the streaming batch handler serves. A collection PATCH of a resource
// without batch: true is an error, as the server would route it to that handler.
func servedByHand(doc *openapi3.T, reg *resource.Registry) ([]string, error) {
	var ids []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			marked, err := takeMarker(op)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			batch, err := isBatchOperation(reg, path, method)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			if !marked && !batch {
				continue
			}
			if op.OperationID == "" {
				return nil, fmt.Errorf("%s %s: an operation served by hand needs an operationId", method, path)
			}
			ids = append(ids, op.OperationID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// takeMarker reads and removes an operation's x-entityapi servedBy marker
// (a search's types stay); an unknown member or server is an error.
func takeMarker(op *openapi3.Operation) (bool, error) {
	ext, ok := op.Extensions["x-entityapi"]
	if !ok {
		return false, nil
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return false, err
	}
	var m operationMarker
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return false, fmt.Errorf("x-entityapi: %w", err)
	}
	if m.ServedBy == "" && len(m.Search) > 0 {
		return false, nil
	}
	delete(op.Extensions, "x-entityapi")
	if !servedBy[m.ServedBy] || len(m.Search) > 0 {
		return false, fmt.Errorf("x-entityapi: unknown servedBy %q", m.ServedBy)
	}
	return true, nil
}

// isBatchOperation tells whether method on path is the batch operation of a
// resource: PATCH on /api/{type}, as the server's route table reads it.
func isBatchOperation(reg *resource.Registry, path, method string) (bool, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if method != http.MethodPatch || len(segs) != 2 || segs[0] != "api" {
		return false, nil
	}
	r, ok := reg.Get(segs[1])
	if !ok {
		return false, nil
	}
	if !r.Batch {
		return false, fmt.Errorf("a PATCH on a collection is a batch request, but the x-entityapi of %s has no batch: true", r.Type)
	}
	return true, nil
}
