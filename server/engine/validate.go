package engine

import (
	"context"
	"errors"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/storage"
)

// A validate-only write (meta.validate: true on the primary data of a POST
// or PATCH, or on every item of a synchronous batch) runs exactly as the
// write would, in a transaction of its own, and renders its answer there;
// then the transaction is rolled back. So every check runs as it would
// (schema, rules, upsert matching, related records, uniqueness, including
// the database's own constraints), the answer is the one the write would
// give, ids included, and nothing is stored. On PostgreSQL the ids a
// validated create shows are taken from their sequence and not used again.

// errValidated rolls back the transaction of a validate-only write once its
// answer is rendered.
var errValidated = errors.New("engine: validate only: roll back")

// dryRun runs write on a copy of cl whose queries go to one transaction,
// then rolls that transaction back and answers what write answered.
func (e *Engine) dryRun(cl *call, write func(cl *call) (*jsonapi.Reply, error)) (*jsonapi.Reply, error) {
	var reply *jsonapi.Reply
	err := cl.db.Tx(cl.ctx, func(c *storage.Conn) error {
		dry := *cl
		dry.db = c
		var err error
		if reply, err = write(&dry); err != nil {
			return err
		}
		return errValidated
	})
	if errors.Is(err, errValidated) {
		return reply, nil
	}
	return nil, err
}

// validateChunk writes a checked chunk of a synchronous batch whose items
// all carry meta.validate, renders the answer, and rolls the writes back.
// record then runs outside the rolled-back transaction, with nothing
// counted as written, so that an operation the request opened when it
// outlived its wait still ends.
func (e *Engine) validateChunk(ctx context.Context, cl *call, run *checkedChunk,
	record func(c *storage.Conn, out *ChunkOutcome) error) (*ChunkOutcome, error) {
	noRecord := func(*storage.Conn, *ChunkOutcome) error { return nil }
	var rendered *jsonapi.Reply
	err := cl.db.Tx(ctx, func(c *storage.Conn) error {
		dry := *cl
		dry.db = c
		if err := e.writeChecked(ctx, c, &dry, run, true, noRecord); err != nil {
			return err
		}
		var err error
		if rendered, err = e.batchReply(&dry, run.out); err != nil {
			return err
		}
		return errValidated
	})
	switch {
	case errors.Is(err, errAtomicFailed):
		run.finish(false)
		return run.out, nil
	case !errors.Is(err, errValidated):
		return nil, err
	}
	run.finish(false)
	run.out.validated = rendered
	if err := record(cl.db, run.out); err != nil {
		return nil, err
	}
	return run.out, nil
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
		all = all && (ci.validate || ci.failed)
	}
	if !some || all {
		return
	}
	for _, ci := range data {
		if ci.validate {
			ci.fail(validateNotSupported(ci.in, "Either every item of a synchronous batch has meta.validate or none has."))
		}
	}
}
