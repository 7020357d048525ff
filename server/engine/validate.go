package engine

import (
	"errors"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/storage"
)

// A validate-only write (meta.validate: true on the primary data of a POST
// or PATCH; a synchronous batch whose every item has it runs the same way
// in server/batch/chunk) runs exactly as the write would, in a transaction
// of its own, and renders its answer there; then the transaction is rolled
// back. So every check runs as it would (schema, rules, upsert matching,
// related records, uniqueness, including the database's own constraints),
// the answer is the one the write would give, ids included, and nothing is
// stored. On PostgreSQL the ids a
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
