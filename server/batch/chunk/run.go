package chunk

import (
	"context"
	"errors"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/batch/stage"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file runs one chunk in a transaction of its own: the one chunk of a
// synchronous batch (Run), all or nothing, and a staged chunk going again
// alone (write.go). A synchronous batch whose every item has meta.validate
// is written exactly as it would be, its answer rendered, and its
// transaction rolled back, as a validate-only single write is
// (server/engine/validate.go).

var (
	// errAlreadyDone rolls back the writes of a chunk whose outcome another
	// run has already recorded.
	errAlreadyDone = errors.New("chunk: the chunk was already processed")
	// errAtomicFailed rolls back a synchronous batch an item of which failed
	// to be written.
	errAtomicFailed = errors.New("chunk: an item of an atomic batch failed")
	// errValidated rolls back the transaction of a validate-only chunk once
	// its answer is rendered.
	errValidated = errors.New("chunk: validate only: roll back")
)

// Run writes the one chunk of a synchronous batch in one transaction, all or
// nothing: record runs in it when the items are written. Hashing the
// passwords (stage.Seal) is the run's work, timed with it.
func Run(ctx context.Context, b *engine.Bulk, ch split.Chunk, record func(c *storage.Conn, out *Outcome) error) (*Outcome, error) {
	res := b.Resource()
	data, included := stage.Seal(b, res, ch.Data), stage.Seal(b, nil, ch.Included)
	return run(ctx, b, res.Type, data, included, true, record)
}

// Reply renders the written records of a synchronous batch in request
// order (engine.Bulk.Render), or the answer a validate-only one rendered
// before its writes were rolled back.
func Reply(b *engine.Bulk, out *Outcome) (*jsonapi.Reply, error) {
	if out.validated != nil {
		return out.validated, nil
	}
	return b.Render(nil, engineItems(out.data), engineItems(out.included))
}

// run processes the items of one chunk of a batch on type typ. record
// stores the outcome in the transaction of the writes; it is not called
// when atomic is set and an item has a problem (then nothing is written and
// the problems are returned as the outcome's).
func run(ctx context.Context, b *engine.Bulk, typ string, data, included []jobs.ChunkItem, atomic bool,
	record func(c *storage.Conn, out *Outcome) error) (*Outcome, error) {
	r, err := check(ctx, b, typ, data, included, atomic)
	if err != nil {
		return nil, err
	}
	if atomic && anyFailed(r.all) {
		r.finish(false)
		return r.out, nil
	}
	if atomic && r.validateOnly() {
		return validateChunk(ctx, b, r, record)
	}
	err = b.Conn().Tx(ctx, func(c *storage.Conn) error {
		return writeChecked(ctx, c, b, r, atomic, record)
	})
	if errors.Is(err, errAtomicFailed) {
		r.finish(false)
		return r.out, nil
	}
	if err != nil {
		return nil, err
	}
	return r.out, nil
}

// writeChecked writes a checked chunk in c's transaction and records its
// outcome there (record). With atomic, an item that fails to be written
// makes it return errAtomicFailed, to roll the transaction back.
func writeChecked(ctx context.Context, c *storage.Conn, b *engine.Bulk, r *checkedChunk, atomic bool,
	record func(c *storage.Conn, out *Outcome) error) error {
	if err := writeChunk(ctx, c, b, r.items, r.adjacent, atomic); err != nil {
		return err
	}
	if atomic && anyFailed(r.all) {
		return errAtomicFailed
	}
	r.finish(true)
	return record(c, r.out)
}

// validateChunk writes a checked chunk of a synchronous batch whose items
// all carry meta.validate, renders the answer, and rolls the writes back.
// record then runs outside the rolled-back transaction, with nothing
// counted as written, so that an operation the request opened when it
// outlived its wait still ends.
func validateChunk(ctx context.Context, b *engine.Bulk, r *checkedChunk,
	record func(c *storage.Conn, out *Outcome) error) (*Outcome, error) {
	noRecord := func(*storage.Conn, *Outcome) error { return nil }
	var rendered *jsonapi.Reply
	err := b.Conn().Tx(ctx, func(c *storage.Conn) error {
		if err := writeChecked(ctx, c, b, r, true, noRecord); err != nil {
			return err
		}
		var err error
		if rendered, err = b.Render(c, engineItems(r.out.data), engineItems(r.out.included)); err != nil {
			return err
		}
		return errValidated
	})
	switch {
	case errors.Is(err, errAtomicFailed):
		r.finish(false)
		return r.out, nil
	case !errors.Is(err, errValidated):
		return nil, err
	}
	r.finish(false)
	r.out.validated = rendered
	if err := record(b.Conn(), r.out); err != nil {
		return nil, err
	}
	return r.out, nil
}

// validateOnly tells whether every primary item of a checked chunk asks
// for validation only (refuseMixedValidate has failed the items of a chunk
// that mixes both).
func (r *checkedChunk) validateOnly() bool {
	for _, ci := range r.out.data {
		if !ci.validate {
			return false
		}
	}
	return len(r.out.data) > 0
}

// refuseMixedValidate fails the items asking for validation only in a
// synchronous batch whose other items ask to be written: the batch is
// written all or nothing, so it is validated all or nothing too.
func refuseMixedValidate(data []*chunkItem) {
	some, all := false, true
	for _, ci := range data {
		some = some || ci.validate
		all = all && (ci.validate || ci.Failed())
	}
	if !some || all {
		return
	}
	for _, ci := range data {
		if ci.validate {
			ci.Fail(problem.Constraint("value constraint", "Either every item of a synchronous batch has meta.validate or none has.",
				ci.Pointer()+"/meta/validate"))
		}
	}
}

// engineItems are the engine's items of cs, in their order.
func engineItems(cs []*chunkItem) []*engine.Item {
	out := make([]*engine.Item, len(cs))
	for i, ci := range cs {
		out[i] = &ci.Item
	}
	return out
}
