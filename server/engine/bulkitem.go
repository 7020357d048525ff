package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/check"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Item is one record of a batch, read (ReadItem), decided (Group) and
// written (WriteItems) as a single request's record is. A batch reports the
// problems of each item and writes the others, so an item may fail: the
// engine's steps pass over a failed item, and fail the items they find at
// fault. Its zero value is ready for ReadItem; server/batch/chunk keeps it
// inside its own record of the item (where it came from in the request),
// with no allocation of its own.
type Item struct {
	item
	failed   bool
	problems problem.List
}

// Resource is the item's type (nil when the item named none the
// application has).
func (it *Item) Resource() *resource.Resource { return it.res }

// ClientID is the id the client gave the item ("" for none).
func (it *Item) ClientID() string { return it.clientID }

// Update tells whether the item changes a stored record (meta.update).
func (it *Item) Update() bool { return it.update }

// Relationships are the item's relationships as sent, so that the batch can
// find the items linked with each other (nil before ReadItem).
func (it *Item) Relationships() map[string]jsonapi.Relationship {
	if it.in == nil {
		return nil
	}
	return it.in.rels
}

// Failed tells whether the item is skipped: its own problems, or those of an
// item linked with it.
func (it *Item) Failed() bool { return it.failed }

// Problems are the item's own problems, in the order they were found.
func (it *Item) Problems() problem.List { return it.problems }

// Fail records problems of the item and skips it; a problem without a
// pointer points at the item.
func (it *Item) Fail(ps ...*problem.Problem) {
	it.failed = true
	for _, p := range ps {
		if p.Pointer == "" {
			p.Pointer = it.in.base
		}
		it.problems = append(it.problems, p)
	}
}

// Pointer is where the item is in the request: /data/2, /included/0.
func (it *Item) Pointer() string { return it.in.base }

// Skip skips the item without a problem of its own: it goes with an item
// that failed.
func (it *Item) Skip() { it.failed = true }

// ItemSource is a batch item as the batch read it from its staged chunk.
type ItemSource struct {
	// Raw is the item's bytes as staged.
	Raw []byte
	// Resource, when set, is Raw already decoded (the batch reads an item in
	// one pass), and Value the item as json.Unmarshal into map[string]any
	// makes it, without its meta, for the schema check. Nil: the engine
	// decodes and checks Raw itself.
	Resource *jsonapi.Resource
	Value    map[string]any
	// Hashed: the write-only attributes hold hashes made before the item was
	// staged (server/batch/stage), not the values as sent.
	Hashed bool
	// Staged are the problems found before the item was staged (a
	// password's), reported with those of the schema check they are part of.
	Staged []*problem.Problem
	// Included: the item is of the request's included array; Sync: the batch
	// is synchronous (meta.validate is taken only on its primary items).
	Included, Sync bool
}

// ReadItem reads one batch item into it, at base (its pointer in the
// request): its resource object, meta options, permission and schema. res is
// the batch's type for a primary item, nil for an included one (its type is
// its own). A problem fails the item. validate tells whether the item asks
// for validation only (meta.validate).
func (b *Bulk) ReadItem(it *Item, res *resource.Resource, base string, src *ItemSource) (validate bool) {
	e, cl := b.e, b.cl
	it.in = &input{base: base}
	r, value := src.Resource, src.Value
	if r == nil {
		r, value = &jsonapi.Resource{}, nil
		if err := json.Unmarshal(src.Raw, r); err != nil {
			it.Fail(problem.RequestData("The item should be a resource object.", base))
			return false
		}
	}
	if res == nil {
		var ok bool
		if res, ok = e.reg.Get(r.Type); !ok {
			it.Fail(problem.RequestData(fmt.Sprintf("Unknown entity type: %s.", r.Type), base+"/type"))
			return false
		}
	}
	it.res, it.in = res, resourceInput(r, base)
	it.in.hashed = src.Hashed
	if r.ID != nil {
		it.clientID = *r.ID
	}
	opts, err := readMeta(res, it.in, false, http.MethodPost)
	switch {
	case err == nil && opts.validate && src.Included:
		err = validateNotSupported(it.in, "The option is not supported on an included record; put it in the primary items' meta.")
	case err == nil && opts.validate && !src.Sync:
		err = validateNotSupported(it.in, `The option is supported only in a synchronous batch ("X-Mode: sync").`)
	}
	if err != nil {
		it.Fail(err.(*problem.Problem))
		return false
	}
	update, up := opts.update, opts.upsert
	it.update, it.upsert = update, up
	if it.expect, err = readVersion(it.in, update, up); err != nil {
		it.Fail(err.(*problem.Problem))
		return opts.validate
	}
	if update && it.clientID == "" {
		it.Fail(problem.RequestData("The identifier of an item to update is required.", base+"/id"))
		return opts.validate
	}
	act := createAction
	if update || up != nil {
		act = editAction
	}
	if !allowed(cl.roles, res, act) || (up != nil && !allowed(cl.roles, res, createAction)) {
		d := Denied()
		d.Pointer = base
		it.Fail(d)
		return opts.validate
	}
	var p []*problem.Problem
	if value == nil {
		p = e.checkItem(src.Raw, res.Type, update, base)
	} else if schema, out := e.itemSchema(res.Type, update, base); out != nil {
		p = out
	} else {
		p = check.Decoded(schema, value, update, base)
	}
	if p = append(p, src.Staged...); len(p) > 0 {
		it.Fail(p...)
	}
	return opts.validate
}

// WriteItems writes the live items among items (those not failed), with
// their change events, in c's transaction (the batch's, or a savepoint of
// it): upserts find their records, then, with bulk, plain creates of one
// type share multi-row INSERTs. On an error it returns the item being
// written (the first of a multi-row INSERT; nil when none is to blame), for
// Blame.
func (b *Bulk) WriteItems(ctx context.Context, c *storage.Conn, items []*Item, bulk bool) (failed *Item, err error) {
	live := make([]*item, 0, len(items))
	for _, it := range items {
		if !it.failed {
			live = append(live, &it.item)
		}
	}
	if len(live) == 0 {
		return nil, nil
	}
	at, err := b.e.writeRecords(ctx, c, b.cl, live, bulk, false)
	if at != nil {
		for _, it := range items {
			if &it.item == at {
				return it, err
			}
		}
	}
	return nil, err
}

// Blame records err, the error of writing the item (WriteItems), as its
// problems: a constraint it breaks, a record it updates that is gone. False
// when err is no item's doing (the database went away): the caller returns
// it.
func (it *Item) Blame(err error) bool {
	var p error
	if errors.Is(err, storage.ErrNotFound) {
		p = notFoundAt(it.in.base + "/id")
	} else {
		p = writeProblem(it.res, it.in, err)
	}
	list, ok := problem.From(p)
	if !ok {
		return false
	}
	it.Fail(list...)
	return true
}

func notFoundAt(pointer string) *problem.Problem {
	p := problem.NotFound()
	p.Pointer = pointer
	return p
}

// SealSecret checks a plain write-only value (a password) as the create or
// update schema of typ declares it, and hashes it: a batch stages the hash
// in its place (server/batch/stage), so that no plain password waits in the
// database for its chunk to run. Its problems are those the schema check of
// the item at base would find. A schema that does not declare name leaves
// the refusal to the run (an unknown field, whatever its value): an empty
// value stands in for it.
func (b *Bulk) SealSecret(typ string, update bool, name string, value json.RawMessage, base, pointer string) (json.RawMessage, []*problem.Problem) {
	schemas := b.e.items.create
	if update {
		schemas = b.e.items.update
	}
	schema := propertySchema(schemas[typ], attributesMember, name)
	if schema == nil {
		return json.RawMessage(`""`), nil
	}
	var plain any
	if err := json.Unmarshal(value, &plain); err != nil {
		return nil, []*problem.Problem{problem.Constraint("type constraint", "This value is not valid.", pointer)}
	}
	if out := check.Visit(schema, plain, pointer, base, func() *problem.Problem {
		return problem.Constraint("form constraint", "This value is not valid.", pointer)
	}); out != nil {
		return nil, out
	}
	s, _ := plain.(string)
	hash, p := hashPassword(s, pointer)
	if p != nil {
		return nil, []*problem.Problem{p}
	}
	quoted, _ := json.Marshal(hash)
	return quoted, nil
}

// propertySchema follows properties by name from schema (nil when one is
// not declared).
func propertySchema(schema *openapi3.Schema, names ...string) *openapi3.Schema {
	for _, name := range names {
		if schema == nil {
			return nil
		}
		ref := schema.Properties[name]
		if ref == nil {
			return nil
		}
		schema = ref.Value
	}
	return schema
}
