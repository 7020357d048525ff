// Package atomic serves JSON:API Atomic Operations (POST /api/operations):
// the operations of one request run in order in one transaction, each as the
// single request it stands for. It sits above the engine and serves every
// operation through the engine's own entry points (Create, Update, Delete,
// the relationship changes), with the route, roles and checks that request
// would have; the engine knows nothing of it.
package atomic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/check"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// An atomic request (JSON:API Atomic Operations, POST /api/operations) runs
// its operations in order in one transaction. Each operation is the single
// request it stands for: it is mapped to that request's route, checked with
// that route's roles and schema, and served by the same engine function
// (Create, Update, Delete, the relationship changes) on a request whose
// queries run in the transaction (engine.Request.Tx), so a later operation
// sees what an earlier one wrote and the first failure rolls everything back.

// atomicOperation is one member of atomic:operations, as the document's
// schema (AtomicOperation) has already checked it.
type atomicOperation struct {
	Op   string          `json:"op"`
	Ref  *atomicRef      `json:"ref"`
	Href *string         `json:"href"`
	Data json.RawMessage `json:"data"`
	Meta json.RawMessage `json:"meta"`
}

// atomicRef is an operation's target by type and id (or local id).
type atomicRef struct {
	Type         string  `json:"type"`
	ID           *string `json:"id"`
	LID          *string `json:"lid"`
	Relationship *string `json:"relationship"`
}

// localID is what a lid stands for once its add has run.
type localID struct {
	typ, id string
}

// atomicRun is the state of one atomic request.
type atomicRun struct {
	e      *engine.Engine
	routes *engine.RouteTable
	r      *engine.Request
	lids   map[string]localID
}

// Count reads how many operations an atomic request body holds, without
// reading them, so that a request over the limit is refused (413) before any
// work; a body it cannot read is left to the schema check (nil).
func Count(body []byte, limit int) *problem.Problem {
	var doc struct {
		Ops []json.RawMessage `json:"atomic:operations"`
	}
	if json.Unmarshal(body, &doc) != nil || limit <= 0 || len(doc.Ops) <= limit {
		return nil
	}
	return &problem.Problem{Kind: problem.TooLarge, Title: "request entity too large http exception",
		Detail:  "An atomic request may hold at most " + strconv.Itoa(limit) + " operations; this one holds " + strconv.Itoa(len(doc.Ops)) + ".",
		Pointer: "/atomic:operations"}
}

// Run answers POST /api/operations, r, with e: every operation stored, or
// none. The answer is 200 with one result per operation, or 204 when no
// result has data.
func Run(e *engine.Engine, r *engine.Request, body []byte) (*jsonapi.Reply, error) {
	if err := e.Admit(r); err != nil {
		return nil, err
	}
	var doc struct {
		Ops []json.RawMessage `json:"atomic:operations"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Ops) == 0 {
		return nil, problem.RequestData("The request should hold a non-empty atomic:operations array.", "/atomic:operations")
	}
	run := &atomicRun{e: e, routes: e.Routes(), r: r, lids: map[string]localID{}}
	results := make([][]byte, len(doc.Ops))
	anyData := false
	inTx := e.Tx
	if r.Tx != nil { // a keyed request's own (server/idempotency.go): a savepoint of it
		inTx = r.Tx.Tx
	}
	err := inTx(r.Ctx, func(tx *storage.Conn) error {
		for i, raw := range doc.Ops {
			result, err := run.operation(tx, i, raw)
			if err != nil {
				return atOperation(err, i)
			}
			results[i] = result
			anyData = anyData || result != nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !anyData {
		return &jsonapi.Reply{Status: http.StatusNoContent}, nil
	}
	out := []byte(`{"atomic:results":[`)
	for i, result := range results {
		if i > 0 {
			out = append(out, ',')
		}
		if result == nil {
			out = append(out, "{}"...)
			continue
		}
		out = append(out, `{"data":`...)
		out = append(out, result...)
		out = append(out, '}')
	}
	out = append(out, "]}"...)
	return &jsonapi.Reply{Status: http.StatusOK, ContentType: jsonapi.AtomicMediaType, Body: out}, nil
}

// atOperation moves the problems of operation i into the request: a pointer
// into the single request's document (/data/...) is prefixed with the
// operation's place, and a problem that says nowhere points at the operation.
func atOperation(err error, i int) error {
	list, ok := problem.From(err)
	if !ok {
		return err
	}
	prefix := "/atomic:operations/" + strconv.Itoa(i)
	out := make(problem.List, len(list))
	for j, p := range list {
		q := *p
		switch {
		case strings.HasPrefix(q.Pointer, prefix):
		case strings.HasPrefix(q.Pointer, "/"):
			q.Pointer = prefix + q.Pointer
		case q.Pointer == "" && q.Parameter == "" && q.Header == "":
			q.Pointer = prefix
		}
		out[j] = &q
	}
	return out
}

// operation runs operation i as its single request, in tx; its result is the
// record answered (add and update of a record), or nil.
func (run *atomicRun) operation(tx *storage.Conn, i int, raw json.RawMessage) ([]byte, error) {
	prefix := "/atomic:operations/" + strconv.Itoa(i)
	var op atomicOperation
	if err := json.Unmarshal(raw, &op); err != nil {
		return nil, problem.RequestData("The operation is not valid.", prefix)
	}
	if op.Ref != nil && op.Href != nil {
		return nil, problem.RequestData("An operation names its target by ref or by href, not both.", prefix)
	}
	data, definedLID, err := run.resolveData(&op)
	if err != nil {
		return nil, err
	}
	typ, id, rel, err := run.target(&op, data)
	if err != nil {
		return nil, err
	}
	rt, path, id, err := run.route(&op, typ, id, rel)
	if err != nil {
		return nil, err
	}
	if !rt.Allows(run.r.Principal.Roles) {
		return nil, engine.Denied()
	}
	e := run.e
	single := &engine.Request{Ctx: run.r.Ctx, Route: rt, ID: id, Path: path, Origin: run.r.Origin, Query: url.Values{},
		Format: engine.JSONAPI, Principal: run.r.Principal, Lang: run.r.Lang, XInclude: run.r.XInclude, Tx: tx}
	var reply *jsonapi.Reply
	if rt.IsItem() && rt.Method() == http.MethodDelete {
		if op.Data != nil && string(op.Data) != "null" {
			return nil, problem.RequestData("A remove operation carries no data.", "/data")
		}
		reply, err = e.Delete(single)
	} else {
		var doc *jsonapi.Document
		if doc, err = singleDocument(run.r, rt, id, data); err != nil {
			return nil, err
		}
		switch {
		case rt.IsCollection():
			reply, err = e.Create(single, doc, nil)
		case rt.IsItem():
			reply, err = e.Update(single, doc, nil)
		case rt.Method() == http.MethodPost:
			reply, err = e.AddToRelationship(single, doc)
		case rt.Method() == http.MethodDelete:
			reply, err = e.RemoveFromRelationship(single, doc)
		default:
			reply, err = e.UpdateRelationship(single, doc)
		}
	}
	if err != nil {
		return nil, err
	}
	top := reply.Document()
	if top == nil {
		return nil, nil
	}
	one, ok := top.Data.(jsonapi.One)
	if !ok || one.Resource == nil {
		return nil, nil
	}
	if definedLID != "" {
		run.lids[definedLID] = localID{typ: one.Resource.Type, id: one.Resource.ID}
	}
	return one.Resource.AppendJSON(nil), nil
}

// resolveData replaces the local ids of an operation's data by the ids their
// adds gave the records: the data's own lid (an update), and the lids of
// related identifiers. The lid of an add's data is taken out and returned, to
// be recorded once the record exists.
func (run *atomicRun) resolveData(op *atomicOperation) (json.RawMessage, string, error) {
	if len(op.Data) == 0 || string(op.Data) == "null" {
		return op.Data, "", nil
	}
	dec := json.NewDecoder(bytes.NewReader(op.Data))
	dec.UseNumber()
	var data any
	if err := dec.Decode(&data); err != nil {
		return nil, "", problem.RequestData("The operation's data is not valid.", "/data")
	}
	defined := ""
	relationshipOp := op.Ref != nil && op.Ref.Relationship != nil ||
		op.Href != nil && strings.Contains(*op.Href, "/relationships/")
	switch d := data.(type) {
	case []any:
		for j, v := range d {
			if err := run.resolveIdentifier(v, "/data/"+strconv.Itoa(j)); err != nil {
				return nil, "", err
			}
		}
	case map[string]any:
		if len(op.Meta) > 0 && !relationshipOp {
			if _, has := d["meta"]; has {
				return nil, "", problem.RequestData("The operation's meta and its data's meta are one: send one of them.", "/meta")
			}
			d["meta"] = op.Meta // {"upsert": ...}: the resource object's meta, as in a single request
		}
		if relationshipOp {
			if err := run.resolveIdentifier(d, "/data"); err != nil {
				return nil, "", err
			}
			break
		}
		if lid, ok := d["lid"]; ok {
			s, isString := lid.(string)
			if !isString || s == "" {
				return nil, "", problem.RequestData("A lid is a non-empty string.", "/data/lid")
			}
			if _, hasID := d["id"]; hasID {
				return nil, "", problem.RequestData("A resource object has an id or a lid, not both.", "/data/lid")
			}
			if op.Op == "add" {
				if _, taken := run.lids[s]; taken {
					return nil, "", problem.RequestData("The lid "+strconv.Quote(s)+" is already given to another record of this request.", "/data/lid")
				}
				defined = s
				delete(d, "lid")
			} else if err := run.resolveIdentifier(d, "/data"); err != nil {
				return nil, "", err
			}
		}
		if rels, ok := d["relationships"].(map[string]any); ok {
			for name, r := range rels {
				ro, ok := r.(map[string]any)
				if !ok {
					continue
				}
				at := "/data/relationships/" + name + "/data"
				switch linkage := ro["data"].(type) {
				case map[string]any:
					if err := run.resolveIdentifier(linkage, at); err != nil {
						return nil, "", err
					}
				case []any:
					for j, v := range linkage {
						if err := run.resolveIdentifier(v, at+"/"+strconv.Itoa(j)); err != nil {
							return nil, "", err
						}
					}
				}
			}
		}
	}
	out, err := json.Marshal(data)
	if err != nil {
		return nil, "", err
	}
	return out, defined, nil
}

// resolveIdentifier replaces a resource identifier's lid by its id.
func (run *atomicRun) resolveIdentifier(v any, at string) error {
	ident, ok := v.(map[string]any)
	if !ok {
		return nil // the schema check reports it
	}
	lid, ok := ident["lid"]
	if !ok {
		return nil
	}
	s, _ := lid.(string)
	if _, hasID := ident["id"]; hasID {
		return problem.RequestData("A resource identifier has an id or a lid, not both.", at+"/lid")
	}
	typ, _ := ident["type"].(string)
	id, err := run.lookup(typ, s, at+"/lid")
	if err != nil {
		return err
	}
	delete(ident, "lid")
	ident["id"] = id
	return nil
}

// lookup is the id a lid stands for, of type typ.
func (run *atomicRun) lookup(typ, lid, at string) (string, error) {
	known, ok := run.lids[lid]
	if !ok {
		return "", problem.RequestData("The lid "+strconv.Quote(lid)+" is not given to a record added by an earlier operation of this request.", at)
	}
	if known.typ != typ {
		return "", problem.RequestData("The lid "+strconv.Quote(lid)+" is given to a record of type "+strconv.Quote(known.typ)+", not "+strconv.Quote(typ)+".", at)
	}
	return known.id, nil
}

// singleDocument is the body the single request of an operation would carry,
// {"data": ...}, checked as that request's body is: type and id
// against the address (409), then the route's schema.
func singleDocument(r *engine.Request, rt *engine.Route, id string, data json.RawMessage) (*jsonapi.Document, error) {
	doc := jsonapi.Document{Data: data}
	if len(doc.Data) == 0 {
		doc.Data = json.RawMessage("null")
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if p := rt.CheckAddress(id, body, true); p != nil {
		return nil, p
	}
	req, err := http.NewRequestWithContext(r.Ctx, rt.Method(), rt.Pattern(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", jsonapi.MediaType)
	params := map[string]string{}
	if id != "" {
		params["id"] = id
	}
	if err := rt.Checks().Check(r.Ctx, req, params, url.Values{}); err != nil {
		return nil, check.Translate(err, rt.Checks(), true)
	}
	return &doc, nil
}
