package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file processes one chunk of a batch (docs/decisions.md §7): every item is
// checked by the validator of a single request; items with problems, and the
// items linked with them, are skipped and their problems recorded; the others
// are written in one transaction, with multi-row INSERTs for plain creates,
// together with the chunk's outcome (record), so a chunk re-run after a crash
// has no double effect.

// chunkItem is one item of a chunk, with where it came from in the request.
type chunkItem struct {
	*item
	included bool
	validate bool // meta.validate: checked and answered, not stored (sync batches only)
	index    int  // zero-based position in its array of the original request
	problems problem.List
	failed   bool // skipped: its own problems, or those of an item linked with it
}

// ChunkOutcome is what a chunk did.
type ChunkOutcome struct {
	counts   jobs.ChunkCounts
	problems []*problem.Problem // in the order of docs/decisions.md §7: data before included, by index, then position
	data     []*chunkItem       // the primary items, in request order
	included []*chunkItem
	// validated is the answer of a validate-only chunk, rendered before its
	// writes were rolled back (validate.go).
	validated *jsonapi.Reply
}

// Counts are what the chunk wrote, created, updated and refused.
func (o *ChunkOutcome) Counts() jobs.ChunkCounts { return o.counts }

// Problems are the problems of the chunk's items, in the order of docs/decisions.md §7.
func (o *ChunkOutcome) Problems() problem.List { return o.problems }

// ErrorRows turns the outcome's problems into rows of async_operation_errors.
func (o *ChunkOutcome) ErrorRows() []jobs.OperationError {
	rows := make([]jobs.OperationError, len(o.problems))
	for i, p := range o.problems {
		rows[i] = jobs.OperationError{Status: p.Kind.Status(), Title: p.Title}
		if p.Detail != "" {
			d := p.Detail
			rows[i].Detail = &d
		}
		if p.Pointer != "" {
			ptr := p.Pointer
			rows[i].Pointer = &ptr
		}
	}
	return rows
}

// errAlreadyDone rolls back the writes of a chunk whose outcome another run
// has already recorded.
var errAlreadyDone = errors.New("engine: the chunk was already processed")

// runChunk processes the items of one chunk of a batch on type typ for cl.
// record stores the outcome in the transaction of the writes; it is not
// called when atomic is set and an item has a problem (then nothing is
// written and the problems are returned as the outcome's).
func (e *Engine) runChunk(ctx context.Context, cl *call, typ string, data, included []jobs.ChunkItem, atomic bool,
	record func(c *storage.Conn, out *ChunkOutcome) error) (*ChunkOutcome, error) {
	run, err := e.checkChunk(ctx, cl, typ, data, included, atomic)
	if err != nil {
		return nil, err
	}
	if atomic && anyFailed(run.all) {
		run.finish(false)
		return run.out, nil
	}
	if atomic && run.validateOnly() {
		return e.validateChunk(ctx, cl, run, record)
	}
	err = cl.db.Tx(ctx, func(c *storage.Conn) error {
		return e.writeChecked(ctx, c, cl, run, atomic, record)
	})
	if errors.Is(err, errAtomicFailed) {
		run.finish(false)
		return run.out, nil
	}
	if err != nil {
		return nil, err
	}
	return run.out, nil
}

// checkedChunk is a chunk whose items have been read and checked, ready to
// be written.
type checkedChunk struct {
	out      *ChunkOutcome
	all      []*chunkItem
	adjacent map[*chunkItem][]*chunkItem
	started  time.Time
	checking time.Duration // what checkChunk took
}

// finish fills the outcome: counts of what was written (none unless
// written) and the problems.
func (r *checkedChunk) finish(written bool) {
	r.out.counts = jobs.ChunkCounts{Read: len(r.out.data)}
	if written {
		r.out.count(r.all)
	}
	r.out.collect(r.all)
	r.out.counts.Millis = time.Since(r.started).Milliseconds()
}

// checkChunk reads and checks the items of one chunk outside any
// transaction: meta, permissions, schema, the records updated and those
// named in relationships (one query per type), and the values to write.
func (e *Engine) checkChunk(ctx context.Context, cl *call, typ string, data, included []jobs.ChunkItem, sync bool) (*checkedChunk, error) {
	started := time.Now()
	res, ok := e.reg.Get(typ)
	if !ok {
		return nil, fmt.Errorf("engine: batch of unknown type %q", typ)
	}
	out := &ChunkOutcome{}
	set := &itemSet{known: map[string]*item{}, created: map[string]*item{}}
	all := make([]*chunkItem, 0, len(data)+len(included))
	for _, raw := range data {
		ci := e.readBatchItem(cl, res, raw, false, sync)
		out.data = append(out.data, ci)
		all = append(all, ci)
	}
	refuseMixedValidate(out.data)
	for _, raw := range included {
		ci := e.readBatchItem(cl, nil, raw, true, sync)
		out.included = append(out.included, ci)
		all = append(all, ci)
	}
	adjacent := links(all)
	for _, ci := range all {
		if ci.failed || ci.in.id == nil || *ci.in.id == "" {
			continue
		}
		ref := set.ref(ci.res.Type, *ci.in.id)
		set.known[ref] = ci.item
		if !ci.update {
			set.created[ref] = ci.item
		}
	}
	err := e.loadCurrent(ctx, cl, all)
	if err != nil {
		return nil, err
	}
	skipLinked(all, adjacent)
	if set.present, err = e.prefetch(ctx, cl, all, set); err != nil {
		return nil, err
	}
	for _, ci := range all {
		if ci.failed {
			continue
		}
		ch, err := e.values(ctx, cl, ci.res, ci.in, ci.current, set)
		if list, ok := problem.From(err); ok {
			ci.fail(list...)
			continue
		}
		if err != nil {
			return nil, err
		}
		ci.ch = ch
		// A new record whose identifier the client chooses (weightunits) is
		// stored under it, as a single create does (write.go).
		if ci.keepsClientID() {
			if ci.clientID == "" {
				ci.fail(problem.Constraint("entity identifier constraint", "The identifier is mandatory.", ci.in.base+"/id"))
				continue
			}
			ch.row[ci.res.IDColumn] = ci.clientID
		}
	}
	skipLinked(all, adjacent)
	out.counts.Read = len(data)
	return &checkedChunk{out: out, all: all, adjacent: adjacent, started: started, checking: time.Since(started)}, nil
}

// writeChecked writes a checked chunk in c's transaction and records its
// outcome there (record). With atomic, an item that fails to be written
// makes it return errAtomicFailed, to roll the transaction back.
func (e *Engine) writeChecked(ctx context.Context, c *storage.Conn, cl *call, run *checkedChunk, atomic bool,
	record func(c *storage.Conn, out *ChunkOutcome) error) error {
	if err := e.writeChunk(ctx, c, cl, run.all, run.adjacent, atomic); err != nil {
		return err
	}
	if atomic && anyFailed(run.all) {
		return errAtomicFailed
	}
	run.finish(true)
	return record(c, run.out)
}

var errAtomicFailed = errors.New("engine: an item of an atomic batch failed")

// readBatchItem reads one staged item: its resource object, meta options,
// permission and schema. res is the batch's type for primary items, nil for
// included ones (their type is their own).
func (e *Engine) readBatchItem(cl *call, res *resource.Resource, raw jobs.ChunkItem, included, sync bool) *chunkItem {
	base := "/data/"
	if included {
		base = "/included/"
	}
	base += strconv.Itoa(raw.Index)
	ci := &chunkItem{item: &item{in: &input{base: base}}, included: included, index: raw.Index}
	r, value, decoded := decodeItem(raw.Raw)
	if !decoded {
		r, value = &jsonapi.Resource{}, nil
		if err := json.Unmarshal(raw.Raw, r); err != nil {
			ci.fail(problem.RequestData("The item should be a resource object.", base))
			return ci
		}
	}
	if res == nil {
		var ok bool
		if res, ok = e.reg.Get(r.Type); !ok {
			ci.fail(problem.RequestData(fmt.Sprintf("Unknown entity type: %s.", r.Type), base+"/type"))
			return ci
		}
	}
	ci.res, ci.in = res, resourceInput(r, base)
	ci.in.hashed = raw.Hashed
	if r.ID != nil {
		ci.clientID = *r.ID
	}
	opts, err := readMeta(res, ci.in, false, http.MethodPost)
	switch {
	case err == nil && opts.validate && included:
		err = validateNotSupported(ci.in, "The option is not supported on an included record; put it in the primary items' meta.")
	case err == nil && opts.validate && !sync:
		err = validateNotSupported(ci.in, `The option is supported only in a synchronous batch ("X-Mode: sync").`)
	}
	if err != nil {
		ci.fail(err.(*problem.Problem))
		return ci
	}
	update, up := opts.update, opts.upsert
	ci.update, ci.upsert, ci.validate = update, up, opts.validate
	if ci.expect, err = readVersion(ci.in, update, up); err != nil {
		ci.fail(err.(*problem.Problem))
		return ci
	}
	if update && ci.clientID == "" {
		ci.fail(problem.RequestData("The identifier of an item to update is required.", base+"/id"))
		return ci
	}
	act := createAction
	if update || up != nil {
		act = editAction
	}
	if !allowed(cl.roles, res, act) || (up != nil && !allowed(cl.roles, res, createAction)) {
		d := Denied()
		d.Pointer = base
		ci.fail(d)
		return ci
	}
	// The problems of a password, found before the item was staged, come
	// with those of the schema check they are part of.
	var p []*problem.Problem
	if value == nil {
		p = e.checkItem(raw.Raw, res.Type, update, base)
	} else if schema, out := e.itemSchema(res.Type, update, base); out != nil {
		p = out
	} else {
		p = checkDecoded(schema, value, update, base)
	}
	if p = append(p, stagedProblems(raw.Problems)...); len(p) > 0 {
		ci.fail(p...)
	}
	return ci
}

func (ci *chunkItem) fail(ps ...*problem.Problem) {
	ci.failed = true
	for _, p := range ps {
		if p.Pointer == "" {
			p.Pointer = ci.in.base
		}
		ci.problems = append(ci.problems, p)
	}
}

// prefetch looks up, with one query per related type, every stored record
// the live items of a chunk name in their relationships, so that checking
// them costs no query per item.
func (e *Engine) prefetch(ctx context.Context, cl *call, all []*chunkItem, set *itemSet) (presence, error) {
	wanted := map[*resource.Resource]map[string]any{}
	for _, ci := range all {
		if ci.failed {
			continue
		}
		for name, r := range ci.in.rels {
			rel, ok := ci.res.Relationship(name)
			if !ok {
				continue
			}
			ids, _, err := r.Linkage()
			if err != nil {
				continue
			}
			target, ok := e.reg.Get(rel.Target)
			if !ok {
				continue
			}
			for _, id := range ids {
				if set.has(set.ref(id.Type, id.ID)) {
					continue
				}
				k, err := key(target, id.ID)
				if err != nil {
					continue
				}
				if wanted[target] == nil {
					wanted[target] = map[string]any{}
				}
				wanted[target][keyString(k)] = k
			}
		}
	}
	out := presence{}
	for target, byString := range wanted {
		keys := make([]any, 0, len(byString))
		found := make(map[string]bool, len(byString))
		for ks, k := range byString {
			keys = append(keys, k)
			found[ks] = false
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(target), Org: cl.org,
			Where: []storage.Cond{{Column: target.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			found[keyString(row[target.IDColumn])] = true
		}
		out[target.Type] = found
	}
	return out, nil
}

// loadCurrent loads the records the update items change, one query per
// type; an update of a record that does not exist is the item's 404.
func (e *Engine) loadCurrent(ctx context.Context, cl *call, all []*chunkItem) error {
	wanted := map[*resource.Resource][]*chunkItem{}
	for _, ci := range all {
		if !ci.failed && ci.update {
			wanted[ci.res] = append(wanted[ci.res], ci)
		}
	}
	for res, items := range wanted {
		keys := make([]any, 0, len(items))
		for _, ci := range items {
			k, err := key(res, ci.clientID)
			if err != nil {
				ci.fail(notFoundAt(ci.in.base + "/id"))
				continue
			}
			ci.key = k
			keys = append(keys, k)
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(res), Org: cl.org,
			Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return err
		}
		found := make(map[string]storage.Row, len(rows))
		for _, row := range rows {
			found[keyString(row[res.IDColumn])] = row
		}
		for _, ci := range items {
			if ci.failed {
				continue
			}
			row, ok := found[keyString(ci.key)]
			if !ok {
				ci.fail(notFoundAt(ci.in.base + "/id"))
				continue
			}
			ci.current = row
		}
	}
	return nil
}

func notFoundAt(pointer string) *problem.Problem {
	p := problem.NotFound()
	p.Pointer = pointer
	return p
}

func anyFailed(all []*chunkItem) bool {
	for _, ci := range all {
		if ci.failed {
			return true
		}
	}
	return false
}

// count fills the counts of the primary items written.
func (o *ChunkOutcome) count(all []*chunkItem) {
	for _, ci := range o.data {
		if ci.failed {
			continue
		}
		o.counts.Write++
		if ci.update {
			o.counts.Updated++
		} else {
			o.counts.Created++
		}
	}
}

// collect gathers the problems in docs/decisions.md §7 order.
func (o *ChunkOutcome) collect(all []*chunkItem) {
	sorted := append([]*chunkItem(nil), all...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].included != sorted[j].included {
			return !sorted[i].included
		}
		return sorted[i].index < sorted[j].index
	})
	o.problems = o.problems[:0]
	for _, ci := range sorted {
		o.problems = append(o.problems, ci.problems...)
	}
	o.counts.Errors = len(o.problems)
}
