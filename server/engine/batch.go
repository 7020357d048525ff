package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file is what the engine does for a batch request, PATCH /api/{type}
// (docs/decisions.md §7): the batch pipeline (server/batch) reads and splits the
// body, stages and queues the chunks, times the synchronous mode and serves
// the operations; the engine turns a split chunk into staged items
// (passwords hashed), writes a chunk, and renders the written records.

// Batch is one batch request as the engine serves it.
type Batch struct {
	e  *Engine
	cl *call
}

// BeginBatch starts a batch request: the caller may create and edit records
// of the type, or the answer is 403.
func (e *Engine) BeginBatch(r *Request) (*Batch, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	if !allowed(cl.roles, res, createAction) || !allowed(cl.roles, res, editAction) {
		return nil, Denied()
	}
	return &Batch{e: e, cl: cl}, nil
}

// Resource is the type the batch writes.
func (b *Batch) Resource() *resource.Resource { return b.cl.rt.res }

// Operation is a new operation record for this batch: the caller's
// organization, user and client, the batch's type.
func (b *Batch) Operation() *jobs.Operation {
	op := &jobs.Operation{OrganizationID: b.cl.org, EntityType: b.cl.rt.res.Type}
	if b.cl.client != "" {
		client := b.cl.client
		op.ClientID = &client
	}
	if b.cl.user != 0 {
		user := b.cl.user
		op.OwnerID = &user
	}
	return op
}

// Stage is a split chunk as it waits in the database for its job: its
// items as sent, with every password hashed (seal.go).
func (b *Batch) Stage(operation int64, ch split.Chunk) *jobs.Chunk {
	return &jobs.Chunk{OperationID: operation, Number: ch.Number,
		Items: stagedItems(b.e.sealItems(b.cl.rt.res, ch.Data)), Included: stagedItems(b.e.sealItems(nil, ch.Included))}
}

// Run writes the one chunk of a synchronous batch in one transaction, all or
// nothing: record runs in it when the items are written. Hashing the
// passwords is the run's work, timed with it.
func (b *Batch) Run(ctx context.Context, ch split.Chunk, record func(c *storage.Conn, out *ChunkOutcome) error) (*ChunkOutcome, error) {
	data, included := b.e.sealItems(b.cl.rt.res, ch.Data), b.e.sealItems(nil, ch.Included)
	out, err := b.e.runChunk(ctx, b.cl, b.cl.rt.res.Type, data, included, true, record)
	if err == nil {
		b.e.chunkDone(b.cl.rt.res.Type, "sync", out.counts)
	}
	return out, err
}

// View is the batch request as its answers see it (the operation's address
// and rendering are server/batch's).
func (b *Batch) View() *View { return &View{cl: b.cl} }

// Reply renders the written records in request order: primary records
// with the client's id in meta.dataId, the included ones with meta.includeId.
// Records are read back with one query per type (and its linkage), whatever
// their number.
func (b *Batch) Reply(out *ChunkOutcome) (*jsonapi.Reply, error) {
	if out.validated != nil {
		return out.validated, nil
	}
	return b.e.batchReply(b.cl, out)
}

func (e *Engine) batchReply(cl *call, out *ChunkOutcome) (*jsonapi.Reply, error) {
	ctx := cl.ctx
	byType := map[*resource.Resource][]*chunkItem{}
	for _, ci := range append(append([]*chunkItem(nil), out.data...), out.included...) {
		byType[ci.res] = append(byType[ci.res], ci)
	}
	objects := map[*chunkItem]*jsonapi.ResourceObject{}
	for res, items := range byType {
		keys := make([]any, len(items))
		for i, ci := range items {
			keys[i] = ci.key
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(res), Org: cl.org,
			Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return nil, err
		}
		links, err := e.loadLinkage(ctx, cl, res, rows, nil)
		if err != nil {
			return nil, err
		}
		byKey := make(map[string]storage.Row, len(rows))
		for _, row := range rows {
			byKey[keyString(row[res.IDColumn])] = row
		}
		for _, ci := range items {
			row, ok := byKey[keyString(ci.key)]
			if !ok {
				return nil, fmt.Errorf("engine: batch record %s %v vanished before the answer", res.Type, ci.key)
			}
			objects[ci] = e.resourceObject(cl, res, row, nil, links)
		}
	}
	withMeta := func(ci *chunkItem, name string) *jsonapi.ResourceObject {
		obj := objects[ci]
		if ci.clientID != "" {
			obj.Meta = append(obj.Meta, jsonapi.Member{Name: name, Value: ci.clientID})
		}
		return obj
	}
	data := make(jsonapi.Many, len(out.data))
	for i, ci := range out.data {
		data[i] = withMeta(ci, "dataId")
	}
	doc := &jsonapi.TopLevel{Data: data}
	for _, ci := range out.included {
		doc.Included = append(doc.Included, withMeta(ci, "includeId"))
	}
	return cl.reply(http.StatusOK, doc, nil), nil
}

// stagedItems encodes items as the JSON array of jobs.ChunkItem, copying
// each item's bytes as they are (nil for none).
func stagedItems(items []jobs.ChunkItem) []byte {
	if len(items) == 0 {
		return nil
	}
	size := 2
	for _, it := range items {
		size += len(it.Raw) + 24
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(it.Index), 10)
		b = append(b, `,"raw":`...)
		b = append(b, it.Raw...)
		if it.Hashed {
			b = append(b, `,"hashed":true`...)
		}
		if len(it.Problems) > 0 {
			ps, _ := json.Marshal(it.Problems)
			b = append(b, `,"problems":`...)
			b = append(b, ps...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
