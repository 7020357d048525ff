package engine

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// If-Match and meta.version (issue 18): a write made from what a client read
// happens only if the record is still in that state. The version is
// compared in the write's own transaction, with the row locked
// (storage.Conn.Version), so that of two writers that read the same version
// exactly one finds it.

// precondition is a parsed If-Match a write must meet: the versions it
// accepts, or any version of an existing record.
type precondition struct {
	any      bool
	versions []int64
}

// readIfMatch parses the request's If-Match: nil when absent, 412 when
// malformed (a weak tag counts as malformed: If-Match compares strongly).
func readIfMatch(cl *call) (*precondition, error) {
	l, err := parseTags(cl.ifMatch)
	if err != nil {
		return nil, problem.PreconditionFailed("The If-Match header is not \"*\" or a list of entity tags.")
	}
	if l == nil {
		return nil, nil
	}
	p := &precondition{any: l.any}
	for _, t := range l.tags {
		if t.weak {
			return nil, problem.PreconditionFailed("A weak entity tag cannot be used in If-Match.")
		}
		if v, ok := t.versionOf(); ok {
			p.versions = append(p.versions, v)
		}
	}
	return p, nil
}

// holds tells whether a record at version v meets the precondition.
func (p *precondition) holds(v int64) bool {
	if p.any {
		return true
	}
	for _, want := range p.versions {
		if want == v {
			return true
		}
	}
	return false
}

// Failures of If-Match, worded once.
var (
	errStale   = problem.PreconditionFailed("The record has changed since the entity tag in If-Match was read.")
	errMissing = problem.PreconditionFailed("No record matches If-Match: the record does not exist.")
)

// check compares the current version of the record with key with p, in c's
// transaction, and locks the row until it ends (storage.Conn.Version): the
// write that follows in the same transaction is then the only one that can
// have read that version. A missing record fails the precondition too.
func (p *precondition) check(ctx context.Context, c *storage.Conn, t *storage.Table, org int64, key any) error {
	if p == nil {
		return nil
	}
	if !t.Versioned {
		return errStale // nothing tells whether it changed: refused, as documented
	}
	v, err := c.Version(ctx, t, org, key)
	if errors.Is(err, storage.ErrNotFound) {
		return errMissing
	}
	if err != nil {
		return err
	}
	if !p.holds(v) {
		return errStale
	}
	return nil
}

// missingAsPrecondition turns the 404 of a record an If-Match write looked
// for into the 412 RFC 9110 §13.1.1 asks for.
func missingAsPrecondition(p *precondition, err error) error {
	if p == nil || err == nil {
		return err
	}
	if list, ok := problem.From(err); ok && len(list) == 1 && list[0].Kind == problem.NotFoundKind {
		return errMissing
	}
	return err
}

// readVersion reads meta.version of a resource object: the version of the
// record the client read, which the write must still find (as If-Match
// does, for a record of a batch or an included one). It goes with an
// update: meta.update on an item, or the primary data of a PATCH; with
// meta.upsert the record may not exist, and a version expected of it would
// be a contradiction, so the two are not combined.
func readVersion(in *input, update bool, up *upsert) (*precondition, error) {
	raw, ok := in.meta["version"]
	if !ok {
		return nil, nil
	}
	var v int64
	if json.Unmarshal(raw, &v) != nil || v < 1 {
		return nil, valueProblem(in, "version", "This value should be a positive integer.")
	}
	switch {
	case up != nil:
		return nil, problem.RequestData("Only one meta option can be used.", in.base+"/meta")
	case !update:
		return nil, valueProblem(in, "version", "The option is supported only for a record to update.")
	}
	return &precondition{versions: []int64{v}}, nil
}

// checkVersions holds an item to its If-Match and meta.version before it is
// written, in c's transaction (see precondition.check). A stale
// meta.version is a 409 at the item's meta.version: in a batch the item's
// error (in a synchronous batch, the whole batch's failure).
func (e *Engine) checkVersions(ctx context.Context, c *storage.Conn, cl *call, it *item) error {
	if it.ifMatch == nil && it.expect == nil {
		return nil
	}
	if !it.update {
		if it.ifMatch != nil {
			return errMissing // an upsert that found nothing to update
		}
		return problem.StaleVersion(it.in.base + "/meta/version")
	}
	t := e.table(it.res)
	if err := it.ifMatch.check(ctx, c, t, cl.org, it.key); err != nil {
		return err
	}
	if it.expect == nil {
		return nil
	}
	v, err := c.Version(ctx, t, cl.org, it.key)
	if err != nil {
		return err // a missing record is answered as without meta.version
	}
	if !it.expect.holds(v) {
		return problem.StaleVersion(it.in.base + "/meta/version")
	}
	return nil
}
