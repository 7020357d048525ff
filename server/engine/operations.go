package engine

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file serves the asyncoperations resource (DESIGN.md §4, §7): reading
// an operation, cancelling it, and paging through its errors. Only its owner
// and the organization's administrators see it (403 for others of the
// organization, 404 elsewhere).

// GetOperation answers GET /api/asyncoperations/{id}.
func (e *Engine) GetOperation(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	op, err := e.readableOperation(cl.ctx, cl, cl.id, false)
	if err != nil {
		return nil, err
	}
	return e.operationReply(cl, http.StatusOK, op), nil
}

// CancelOperation answers PATCH /api/asyncoperations/{id}, whose body (checked
// by the validator) can only ask for status cancelled: a new or running
// operation is cancelled, a finished one is a 409.
func (e *Engine) CancelOperation(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	op, err := e.readableOperation(ctx, cl, cl.id, true)
	if err != nil {
		return nil, err
	}
	switch err := jobs.CancelOperation(ctx, e.store.Conn, cl.org, op.ID); {
	case errors.Is(err, jobs.ErrFinished):
		return nil, problem.Conflict("The operation has already finished; only a new or running operation can be cancelled.", "")
	case errors.Is(err, storage.ErrNotFound):
		return nil, problem.NotFound()
	case err != nil:
		return nil, err
	}
	if op, err = jobs.LoadOperation(ctx, e.store.Conn, cl.org, op.ID); err != nil {
		return nil, err
	}
	return e.operationReply(cl, http.StatusOK, op), nil
}

// OperationErrors answers GET /api/asyncoperations/{id}/errors: a page of the
// item errors, in chunk then position order.
func (e *Engine) OperationErrors(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	q := cl.query
	errs := unsupported(q)
	number, size, pageErrs := parsePage(q)
	errs = append(errs, pageErrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	op, err := e.readableOperation(ctx, cl, cl.id, false)
	if err != nil {
		return nil, err
	}
	total := -1
	if cl.xinclude["totalCount"] {
		if total, err = jobs.CountErrors(ctx, e.store.Conn, op.ID); err != nil {
			return nil, err
		}
	}
	limit, offset := size+1, (number-1)*size
	if size < 0 {
		limit, offset = maxUnpaged+1, 0
	}
	rows, err := jobs.Errors(ctx, e.store.Conn, op.ID, limit, offset)
	if err != nil {
		return nil, err
	}
	hasMore := len(rows) > limit-1
	if hasMore && size < 0 {
		return nil, problem.Filter("page[size]", "More than "+strconv.Itoa(maxUnpaged)+" errors exist; use paging.")
	}
	if hasMore {
		rows = rows[:limit-1]
	}
	if cl.f == Plain {
		list := make([][]jsonapi.Member, len(rows))
		for i, r := range rows {
			list[i] = append([]jsonapi.Member{{Name: "id", Value: errorID(r)}}, errorAttributes(r)...)
		}
		return withTotal(cl.reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), list)), total), nil
	}
	objs := make(jsonapi.Many, len(rows))
	for i, r := range rows {
		objs[i] = &jsonapi.ResourceObject{Type: "asyncoperationerrors", ID: errorID(r), Attributes: errorAttributes(r)}
	}
	doc := &jsonapi.TopLevel{Data: objs}
	if cl.hateoas {
		self := cl.link(operationsType, strconv.FormatInt(op.ID, 10)) + "/errors"
		doc.Links = cl.pageLinks(self, &listParams{number: number, size: size}, hasMore, -1)
	}
	return withTotal(cl.reply(http.StatusOK, doc, nil), total), nil
}

// readableOperation loads the operation named by id for cl: 404 when it does
// not exist in the caller's organization, 403 unless the caller owns it or
// administers the organization.
func (e *Engine) readableOperation(ctx context.Context, cl *call, id string, cancel bool) (*jobs.Operation, error) {
	n, ok := parseID(id)
	if !ok {
		return nil, problem.NotFound()
	}
	op, err := jobs.LoadOperation(ctx, e.store.Conn, cl.org, n)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, problem.NotFound()
	}
	if err != nil {
		return nil, err
	}
	owner := op.OwnerID != nil && *op.OwnerID == cl.user && cl.user != 0
	if !owner && !slices.Contains(cl.roles, roleAdministrator) {
		d := Denied()
		d.Detail = "No access to this operation: only its owner and the organization's administrators may read it."
		if cancel {
			d.Detail = "No access to this operation: only its owner and the organization's administrators may cancel it."
		}
		return nil, d
	}
	return op, nil
}

// operationReply renders an operation in the negotiated format.
func (e *Engine) operationReply(cl *call, status int, op *jobs.Operation) *jsonapi.Reply {
	id := strconv.FormatInt(op.ID, 10)
	var owner any
	if op.OwnerID != nil {
		owner = *op.OwnerID
	}
	if cl.f == Plain {
		members := append([]jsonapi.Member{{Name: "id", Value: op.ID}}, operationAttributes(op)...)
		members = append(members, jsonapi.Member{Name: "owner", Value: owner}, jsonapi.Member{Name: "organization", Value: op.OrganizationID})
		return cl.reply(status, nil, jsonapi.AppendObject(jsonapi.Buffer(), members))
	}
	obj := &jsonapi.ResourceObject{Type: operationsType, ID: id, Attributes: operationAttributes(op)}
	if cl.hateoas {
		obj.Self = cl.link(operationsType, id)
	}
	ownerRel := jsonapi.RelationshipObject{Name: "owner"}
	if op.OwnerID != nil {
		ownerRel.Data = []jsonapi.Identifier{{Type: "users", ID: strconv.FormatInt(*op.OwnerID, 10)}}
	}
	obj.Relationships = []jsonapi.RelationshipObject{ownerRel,
		{Name: "organization", Data: []jsonapi.Identifier{{Type: "organizations", ID: strconv.FormatInt(op.OrganizationID, 10)}}}}
	return cl.reply(status, &jsonapi.TopLevel{Data: jsonapi.One{Resource: obj}}, nil)
}

// operationAttributes are the attributes of the seed's asyncoperations.
func operationAttributes(op *jobs.Operation) []jsonapi.Member {
	var progress any
	switch op.Status {
	case jobs.StatusNew:
	case jobs.StatusSuccess:
		progress = 100.0
	default:
		if op.ChunkCount > 0 {
			progress = math.Round(float64(op.ChunksDone)*10000/float64(op.ChunkCount)) / 100
		} else {
			progress = 0.0
		}
	}
	var elapsed int64
	if op.StartedAt != nil {
		end := time.Now()
		if op.FinishedAt != nil {
			end = *op.FinishedAt
		}
		elapsed = max(0, int64(end.Sub(*op.StartedAt)/time.Second))
	}
	var summary any
	if op.Status == jobs.StatusSuccess {
		summary = []jsonapi.Member{
			{Name: "aggregateTime", Value: op.AggregateMS},
			{Name: "readCount", Value: op.ReadCount},
			{Name: "writeCount", Value: op.WriteCount},
			{Name: "errorCount", Value: op.ErrorCount},
			{Name: "createCount", Value: op.CreateCount},
			{Name: "updateCount", Value: op.UpdateCount},
		}
	}
	return []jsonapi.Member{
		{Name: "status", Value: op.Status},
		{Name: "progress", Value: progress},
		{Name: "createdAt", Value: wireValue(resource.DateTime, op.CreatedAt)},
		{Name: "updatedAt", Value: wireValue(resource.DateTime, op.UpdatedAt)},
		{Name: "elapsedTime", Value: elapsed},
		{Name: "entityType", Value: op.EntityType},
		{Name: "summary", Value: summary},
	}
}

func errorID(r jobs.OperationError) string {
	return strconv.FormatInt(r.OperationID, 10) + "-" + strconv.Itoa(r.Chunk) + "-" + strconv.Itoa(r.N)
}

// errorAttributes are the attributes of one asyncoperationerrors record:
// status is an integer here (oro-behaviour §10.8).
func errorAttributes(r jobs.OperationError) []jsonapi.Member {
	out := []jsonapi.Member{{Name: "status", Value: r.Status}, {Name: "title", Value: r.Title}}
	if r.Detail != nil {
		out = append(out, jsonapi.Member{Name: "detail", Value: *r.Detail})
	}
	var source any
	switch {
	case r.Pointer != nil:
		source = []jsonapi.Member{{Name: "pointer", Value: *r.Pointer}}
	case r.PropertyPath != nil:
		source = []jsonapi.Member{{Name: "propertyPath", Value: *r.PropertyPath}}
	}
	return append(out, jsonapi.Member{Name: "source", Value: source})
}
