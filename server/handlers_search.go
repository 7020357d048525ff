package server

import (
	"context"

	bo "github.com/entityapi/entityapi/gen/backoffice"
)

// Search serves search (GET /api/search): full-text search across the
// searchable types, which the engine answers from their full-text indexes
// (engine.Search) rather than as a list of one type; hand-written because
// "search" is no resource type of the document.
func (h *backofficeHandlers) Search(ctx context.Context, _ bo.SearchRequestObject) (bo.SearchResponseObject, error) {
	return bo.Reply(h.engine.Search(requestOf(ctx)))
}
