package batch

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file serves the asyncoperations resource (docs/decisions.md §4, §7): reading
// an operation, cancelling it, and paging through its errors. Only its owner
// and the organization's administrators see it (403 for others of the
// organization, 404 elsewhere).

// GetOperation answers GET /api/asyncoperations/{id}.
func (p *Pipeline) GetOperation(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := p.engine.View(r)
	if err != nil {
		return nil, err
	}
	op, err := p.readableOperation(v, false)
	if err != nil {
		return nil, err
	}
	return operationReply(v, http.StatusOK, op), nil
}

// CancelOperation answers PATCH /api/asyncoperations/{id}, whose body (checked
// by the validator) can only ask for status cancelled: a new or running
// operation is cancelled, a finished one is a 409.
func (p *Pipeline) CancelOperation(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := p.engine.View(r)
	if err != nil {
		return nil, err
	}
	ctx, conn := v.Ctx(), v.Conn()
	op, err := p.readableOperation(v, true)
	if err != nil {
		return nil, err
	}
	switch err := jobs.CancelOperation(ctx, conn, v.Org(), op.ID); {
	case errors.Is(err, jobs.ErrFinished):
		return nil, problem.Conflict("The operation has already finished; only a new or running operation can be cancelled.", "")
	case errors.Is(err, storage.ErrNotFound):
		return nil, problem.NotFound()
	case err != nil:
		return nil, err
	}
	if op, err = jobs.LoadOperation(ctx, conn, v.Org(), op.ID); err != nil {
		return nil, err
	}
	return operationReply(v, http.StatusOK, op), nil
}

// OperationErrors answers GET /api/asyncoperations/{id}/errors: a page of the
// item errors, in chunk then position order.
func (p *Pipeline) OperationErrors(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := p.engine.View(r)
	if err != nil {
		return nil, err
	}
	ctx, conn := v.Ctx(), p.engine.Store().Conn
	number, size, errs := v.Page()
	if len(errs) > 0 {
		return nil, errs
	}
	op, err := p.readableOperation(v, false)
	if err != nil {
		return nil, err
	}
	total := -1
	if v.Includes("totalCount") {
		if total, err = jobs.CountErrors(ctx, conn, op.ID); err != nil {
			return nil, err
		}
	}
	limit, offset := size+1, (number-1)*size
	if size < 0 {
		limit, offset = engine.MaxUnpaged+1, 0
	}
	rows, err := jobs.Errors(ctx, conn, op.ID, limit, offset)
	if err != nil {
		return nil, err
	}
	hasMore := len(rows) > limit-1
	if hasMore && size < 0 {
		return nil, problem.Filter("page[size]", "More than "+strconv.Itoa(engine.MaxUnpaged)+" errors exist; use paging.")
	}
	if hasMore {
		rows = rows[:limit-1]
	}
	if v.Plain() {
		list := make([][]jsonapi.Member, len(rows))
		for i, r := range rows {
			list[i] = append([]jsonapi.Member{{Name: "id", Value: errorID(r)}}, errorAttributes(r)...)
		}
		return engine.WithTotal(v.Reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), list)), total), nil
	}
	objs := make(jsonapi.Many, len(rows))
	for i, r := range rows {
		objs[i] = &jsonapi.ResourceObject{Type: "asyncoperationerrors", ID: errorID(r), Attributes: errorAttributes(r)}
	}
	doc := &jsonapi.TopLevel{Data: objs}
	if v.Hateoas() {
		self := v.Link(engine.OperationsType, strconv.FormatInt(op.ID, 10)) + "/errors"
		doc.Links = v.PageLinks(self, number, size, hasMore)
	}
	return engine.WithTotal(v.Reply(http.StatusOK, doc, nil), total), nil
}

// readableOperation loads the operation the address names for the caller:
// 404 when it does not exist in the caller's organization, 403 unless the
// caller owns it or administers the organization.
func (p *Pipeline) readableOperation(v *engine.View, cancel bool) (*jobs.Operation, error) {
	n, ok := engine.ParseID(v.ID())
	if !ok {
		return nil, problem.NotFound()
	}
	op, err := jobs.LoadOperation(v.Ctx(), p.engine.Store().Conn, v.Org(), n)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, problem.NotFound()
	}
	if err != nil {
		return nil, err
	}
	owner := op.OwnerID != nil && *op.OwnerID == v.User() && v.User() != 0
	if !owner && !v.Administrator() {
		d := engine.Denied()
		d.Detail = "No access to this operation: only its owner and the organization's administrators may read it."
		if cancel {
			d.Detail = "No access to this operation: only its owner and the organization's administrators may cancel it."
		}
		return nil, d
	}
	return op, nil
}

// operationReply renders an operation in the negotiated format.
func operationReply(v *engine.View, status int, op *jobs.Operation) *jsonapi.Reply {
	id := strconv.FormatInt(op.ID, 10)
	var owner any
	if op.OwnerID != nil {
		owner = *op.OwnerID
	}
	if v.Plain() {
		members := append([]jsonapi.Member{{Name: "id", Value: op.ID}}, operationAttributes(op)...)
		members = append(members, jsonapi.Member{Name: "owner", Value: owner}, jsonapi.Member{Name: "organization", Value: op.OrganizationID})
		return v.Reply(status, nil, jsonapi.AppendObject(jsonapi.Buffer(), members))
	}
	obj := &jsonapi.ResourceObject{Type: engine.OperationsType, ID: id, Attributes: operationAttributes(op)}
	if v.Hateoas() {
		obj.Self = v.Link(engine.OperationsType, id)
	}
	ownerRel := jsonapi.RelationshipObject{Name: "owner"}
	if op.OwnerID != nil {
		ownerRel.Data = []jsonapi.Identifier{{Type: "users", ID: strconv.FormatInt(*op.OwnerID, 10)}}
	}
	obj.Relationships = []jsonapi.RelationshipObject{ownerRel,
		{Name: "organization", Data: []jsonapi.Identifier{{Type: "organizations", ID: strconv.FormatInt(op.OrganizationID, 10)}}}}
	return v.Reply(status, &jsonapi.TopLevel{Data: jsonapi.One{Resource: obj}}, nil)
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
		{Name: "createdAt", Value: engine.DateTime(op.CreatedAt)},
		{Name: "updatedAt", Value: engine.DateTime(op.UpdatedAt)},
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

// operationOf is a new operation record for batch b: the caller's
// organization, user and client, the batch's type, and the id of the
// request ctx is for (its audit rows name it).
func operationOf(ctx context.Context, b *engine.Bulk) *jobs.Operation {
	caller := b.Caller()
	op := &jobs.Operation{OrganizationID: caller.Org, EntityType: b.Resource().Type}
	if a, ok := storage.ActorFrom(ctx); ok && a.Request != "" {
		op.RequestID = &a.Request
	}
	if caller.ClientID != "" {
		client := caller.ClientID
		op.ClientID = &client
	}
	if caller.UserID != 0 {
		user := caller.UserID
		op.OwnerID = &user
	}
	return op
}
