package engine

import (
	"context"
	"net/http"
	"strconv"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// relationshipChange is what a relationship endpoint does with the identifiers sent.
type relationshipChange int

const (
	replaceMembers relationshipChange = iota // PATCH
	addMembers                               // POST, to-many only
	removeMembers                            // DELETE, to-many only
)

// UpdateRelationship answers PATCH /api/{type}/{id}/relationships/{rel}: the
// relationship becomes exactly what the body says.
func (e *Engine) UpdateRelationship(r *Request, doc *jsonapi.Document) (*jsonapi.Reply, error) {
	return e.changeRelationship(r, doc, replaceMembers)
}

// AddToRelationship answers POST on a to-many relationship: the members are added.
func (e *Engine) AddToRelationship(r *Request, doc *jsonapi.Document) (*jsonapi.Reply, error) {
	return e.changeRelationship(r, doc, addMembers)
}

// RemoveFromRelationship answers DELETE on a to-many relationship: the members are removed.
func (e *Engine) RemoveFromRelationship(r *Request, doc *jsonapi.Document) (*jsonapi.Reply, error) {
	return e.changeRelationship(r, doc, removeMembers)
}

func (e *Engine) changeRelationship(r *Request, doc *jsonapi.Document, how relationshipChange) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	pre, err := readIfMatch(cl)
	if err != nil {
		return nil, err
	}
	owner, err := e.load(cl.ctx, cl, cl.rt.res, cl.id)
	if err != nil {
		return nil, missingAsPrecondition(pre, err)
	}
	ctx := cl.ctx
	res, rel := cl.rt.res, cl.rt.rel
	if doc == nil {
		return nil, problem.RequestData("The request data should not be empty.", "")
	}
	ids, _, err := jsonapi.Relationship{Data: doc.Data}.Linkage()
	if err != nil {
		return nil, problem.RequestData("The relationship data is not valid.", "/data")
	}
	keys, missing, err := e.existing(ctx, cl, rel, ids)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && how != removeMembers {
		var list problem.List
		for _, i := range missing {
			p := "/data"
			if rel.ToMany {
				p += "/" + strconv.Itoa(i)
			}
			list = append(list, problem.MissingRelated(p))
		}
		return nil, list
	}
	k := owner[res.IDColumn]
	t := e.table(res)
	ev := cl.event(t, res, k, storage.EventUpdated)
	ev.Relationships = []string{rel.Name}
	err = cl.db.Tx(ctx, func(c *storage.Conn) error {
		if err := pre.check(ctx, c, t, cl.org, k); err != nil {
			return err
		}
		if err := e.writeRelationship(ctx, c, cl, how, k, keys); err != nil {
			return err
		}
		return c.RecordEvents(ctx, []storage.Event{ev}) // after the write: its version
	})
	if _, isProblem := problem.From(err); isProblem {
		return nil, err
	}
	if err != nil {
		return nil, missingAsPrecondition(pre, writeProblem(res, &input{}, err))
	}
	return &jsonapi.Reply{Status: http.StatusNoContent}, nil
}

// writeRelationship changes the relationship of the route of the record
// with key k in c's transaction.
func (e *Engine) writeRelationship(ctx context.Context, c *storage.Conn, cl *call, how relationshipChange, k any, keys []any) error {
	res, rel := cl.rt.res, cl.rt.rel
	t := e.table(res)
	if !rel.ToMany {
		var v any
		if len(keys) > 0 {
			v = keys[0]
		}
		return c.Update(ctx, t, cl.org, k, storage.Row{rel.Column: v}) // counts the version
	}
	j := e.joins[rel.Through.Table]
	var err error
	switch how {
	case addMembers:
		err = c.Link(ctx, j, joinPairs(j, rel, k, keys))
	case removeMembers:
		err = c.Unlink(ctx, j, joinPairs(j, rel, k, keys))
	default:
		err = e.replaceLinks(ctx, c, rel, k, keys)
	}
	if err != nil {
		return err
	}
	// The members are the owner's state: its version counts their change.
	return c.Touch(ctx, t, cl.org, k)
}
