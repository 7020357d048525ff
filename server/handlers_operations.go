package server

import (
	"context"

	bo "github.com/entityapi/entityapi/gen/backoffice"
)

// The asyncoperations operations of the back office: hand-written beside the
// generated one-liners because the batch pipeline serves them
// (server/batch/operations.go), not the generic record engine.

// GetAsyncOperation serves getAsyncOperation.
func (h *backofficeHandlers) GetAsyncOperation(ctx context.Context, _ bo.GetAsyncOperationRequestObject) (bo.GetAsyncOperationResponseObject, error) {
	return bo.Reply(h.batches.GetOperation(requestOf(ctx)))
}

// UpdateAsyncOperation serves updateAsyncOperation (a cancel).
func (h *backofficeHandlers) UpdateAsyncOperation(ctx context.Context, _ bo.UpdateAsyncOperationRequestObject) (bo.UpdateAsyncOperationResponseObject, error) {
	return bo.Reply(h.batches.CancelOperation(requestOf(ctx)))
}

// ListAsyncOperationErrors serves listAsyncOperationErrors.
func (h *backofficeHandlers) ListAsyncOperationErrors(ctx context.Context, _ bo.ListAsyncOperationErrorsRequestObject) (bo.ListAsyncOperationErrorsResponseObject, error) {
	return bo.Reply(h.batches.OperationErrors(requestOf(ctx)))
}
