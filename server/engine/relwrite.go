package engine

import (
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
	cl, owner, err := e.beginOwned(r)
	if err != nil {
		return nil, err
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
	err = cl.db.Tx(ctx, func(c *storage.Conn) error {
		if !rel.ToMany {
			var v any
			if len(keys) > 0 {
				v = keys[0]
			}
			return c.Update(ctx, e.table(res), cl.org, k, storage.Row{rel.Column: v})
		}
		j := e.joins[rel.Through.Table]
		switch how {
		case addMembers:
			return c.Link(ctx, j, joinPairs(j, rel, k, keys))
		case removeMembers:
			return c.Unlink(ctx, j, joinPairs(j, rel, k, keys))
		}
		return e.replaceLinks(ctx, c, rel, k, keys)
	})
	if err != nil {
		return nil, writeProblem(res, &input{}, err)
	}
	return &jsonapi.Reply{Status: http.StatusNoContent}, nil
}
