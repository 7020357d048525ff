package chunk

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/batch/stage"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file checks one chunk of a batch (docs/decisions.md §7): every item is
// checked by the validator of a single request (engine.Bulk.ReadItem,
// engine.Group); items with problems, and the items linked with them, are
// skipped and their problems recorded; the others are written (groups.go)
// in one transaction, with multi-row INSERTs for plain creates, together
// with the chunk's outcome, so a chunk re-run after a crash has no double
// effect.

// chunkItem is one item of a chunk, with where it came from in the request.
type chunkItem struct {
	engine.Item
	included bool
	validate bool // meta.validate: checked and answered, not stored (sync batches only)
	index    int  // zero-based position in its array of the original request
}

// Outcome is what a chunk did.
type Outcome struct {
	counts   jobs.ChunkCounts
	problems []*problem.Problem // in the order of docs/decisions.md §7: data before included, by index, then position
	data     []*chunkItem       // the primary items, in request order
	included []*chunkItem
	// validated is the answer of a validate-only chunk, rendered before its
	// writes were rolled back (run.go).
	validated *jsonapi.Reply
}

// Counts are what the chunk wrote, created, updated and refused.
func (o *Outcome) Counts() jobs.ChunkCounts { return o.counts }

// Problems are the problems of the chunk's items, in the order of docs/decisions.md §7.
func (o *Outcome) Problems() problem.List { return o.problems }

// ErrorRows turns the outcome's problems into rows of async_operation_errors.
func (o *Outcome) ErrorRows() []jobs.OperationError {
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

// checkedChunk is a chunk whose items have been read and checked, ready to
// be written.
type checkedChunk struct {
	out      *Outcome
	all      []*chunkItem
	items    []*engine.Item // all's, in the same order, as the engine takes them
	adjacent map[*engine.Item][]*engine.Item
	started  time.Time
	checking time.Duration // what check took
}

// finish fills the outcome: counts of what was written (none unless
// written) and the problems.
func (r *checkedChunk) finish(written bool) {
	r.out.counts = jobs.ChunkCounts{Read: len(r.out.data)}
	if written {
		r.out.count()
	}
	r.out.collect(r.all)
	r.out.counts.Millis = time.Since(r.started).Milliseconds()
}

// check reads and checks the items of one chunk of a batch on type typ
// outside any transaction: meta, permissions, schema, the records updated
// and those named in relationships (one query per type), and the values to
// write. It only reads.
func check(ctx context.Context, b *engine.Bulk, typ string, data, included []jobs.ChunkItem, sync bool) (*checkedChunk, error) {
	started := time.Now()
	res, ok := b.Resources().Get(typ)
	if !ok {
		return nil, fmt.Errorf("chunk: batch of unknown type %q", typ)
	}
	out := &Outcome{}
	all := make([]*chunkItem, 0, len(data)+len(included))
	for _, raw := range data {
		ci := readItem(b, res, raw, false, sync)
		out.data = append(out.data, ci)
		all = append(all, ci)
	}
	refuseMixedValidate(out.data)
	for _, raw := range included {
		ci := readItem(b, nil, raw, true, sync)
		out.included = append(out.included, ci)
		all = append(all, ci)
	}
	items := make([]*engine.Item, len(all))
	for i, ci := range all {
		items[i] = &ci.Item
	}
	adjacent := links(items)
	g := b.Group(items)
	if err := g.LoadCurrent(ctx); err != nil {
		return nil, err
	}
	skipLinked(items, adjacent)
	if err := g.Convert(ctx); err != nil {
		return nil, err
	}
	skipLinked(items, adjacent)
	out.counts.Read = len(data)
	return &checkedChunk{out: out, all: all, items: items, adjacent: adjacent, started: started, checking: time.Since(started)}, nil
}

// readItem reads one staged item: decoded in one pass when it has the plain
// shape (itemdecode.go), then read by the engine (its resource object, meta
// options, permission and schema). res is the batch's type for primary
// items, nil for included ones (their type is their own).
func readItem(b *engine.Bulk, res *resource.Resource, raw jobs.ChunkItem, included, sync bool) *chunkItem {
	base := "/data/"
	if included {
		base = "/included/"
	}
	base += strconv.Itoa(raw.Index)
	ci := &chunkItem{included: included, index: raw.Index}
	src := engine.ItemSource{Raw: raw.Raw, Hashed: raw.Hashed, Staged: stage.Problems(raw.Problems), Included: included, Sync: sync}
	if r, value, decoded := decodeItem(raw.Raw); decoded {
		src.Resource, src.Value = r, value
	}
	ci.validate = b.ReadItem(&ci.Item, res, base, &src)
	return ci
}

func anyFailed(all []*chunkItem) bool {
	for _, ci := range all {
		if ci.Failed() {
			return true
		}
	}
	return false
}

// count fills the counts of the primary items written.
func (o *Outcome) count() {
	for _, ci := range o.data {
		if ci.Failed() {
			continue
		}
		o.counts.Write++
		if ci.Update() {
			o.counts.Updated++
		} else {
			o.counts.Created++
		}
	}
}

// collect gathers the problems in docs/decisions.md §7 order.
func (o *Outcome) collect(all []*chunkItem) {
	sorted := append([]*chunkItem(nil), all...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].included != sorted[j].included {
			return !sorted[i].included
		}
		return sorted[i].index < sorted[j].index
	})
	o.problems = o.problems[:0]
	for _, ci := range sorted {
		o.problems = append(o.problems, ci.Problems()...)
	}
	o.counts.Errors = len(o.problems)
}
