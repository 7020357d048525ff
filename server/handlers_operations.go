package server

import (
	"context"

	bo "github.com/entityapi/entityapi/gen/backoffice"
)

// The asyncoperations operations of the back office: hand-written beside the
// generated one-liners because the batch pipeline serves them
// (server/batch/operations.go), not the generic record engine.

// GetAsyncOperation serves getAsyncOperation.
//
// With a read replica, the answer records the caller's fence after the
// operation was read (storage.Store.NoteWrite): the chunks the job queue's
// workers wrote carry no principal, and a client that reads success here
// then reads their records, which must not come from a replica that has not
// replayed them.
func (h *backofficeHandlers) GetAsyncOperation(ctx context.Context, _ bo.GetAsyncOperationRequestObject) (bo.GetAsyncOperationResponseObject, error) {
	r := requestOf(ctx)
	reply, err := h.batches.GetOperation(r)
	if err == nil && h.replicated {
		err = h.noteWrite(r.Ctx)
	}
	return bo.Reply(reply, err)
}

// UpdateAsyncOperation serves updateAsyncOperation (a cancel).
func (h *backofficeHandlers) UpdateAsyncOperation(ctx context.Context, _ bo.UpdateAsyncOperationRequestObject) (bo.UpdateAsyncOperationResponseObject, error) {
	return bo.Reply(h.batches.CancelOperation(requestOf(ctx)))
}

// ListAsyncOperationErrors serves listAsyncOperationErrors.
func (h *backofficeHandlers) ListAsyncOperationErrors(ctx context.Context, _ bo.ListAsyncOperationErrorsRequestObject) (bo.ListAsyncOperationErrorsResponseObject, error) {
	return bo.Reply(h.batches.OperationErrors(requestOf(ctx)))
}
