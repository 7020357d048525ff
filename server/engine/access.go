package engine

import (
	"net/http"
	"slices"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
)

// action is what a request does to a resource type, for the roles table.
type action int

const (
	viewAction action = iota
	createAction
	editAction
	deleteAction
	batchAction
)

// Roles (docs/decisions.md §8).
const (
	roleAdministrator = "ROLE_ADMINISTRATOR"
	roleManager       = "ROLE_MANAGER"
	roleUser          = "ROLE_USER"
	// roleIntegration reads like roleUser, and the change events, which
	// other roles but administrators may not (issue 19).
	roleIntegration = "ROLE_INTEGRATION"
)

// allowed is the roles table of docs/decisions.md §8: every role views everything
// but the resources whose x-entityapi names their readers (the events:
// administrators and ROLE_INTEGRATION; the audit history: administrators
// and ROLE_AUDITOR);
// administrators do everything; managers create and edit the resources whose
// x-entityapi says managed: true (Resource.Managed; users, roles and the
// organization stay the administrators') and run batches; nobody else writes.
// A resource is the administrators' unless its document says otherwise, so a
// new entity opens to managers only by a line in its own document.
func allowed(roles []string, res *resource.Resource, a action) bool {
	if a == viewAction && len(res.Readers) > 0 {
		return slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(res.Readers, r) })
	}
	if a == viewAction {
		return len(roles) > 0
	}
	if slices.Contains(roles, roleAdministrator) {
		return true
	}
	if !slices.Contains(roles, roleManager) {
		return false
	}
	switch a {
	case createAction, editAction:
		return res.Managed
	case batchAction:
		return true
	}
	return false
}

// routeAction is the action a documented route performs on its resource type.
func routeAction(rt *Route) action {
	switch {
	case rt.method == http.MethodGet || rt.method == http.MethodHead:
		return viewAction
	case rt.kind == operationRoute:
		return batchAction // a cancel: who may batch; the handler checks the owner
	case rt.kind == relationshipRoute:
		return editAction
	case rt.method == http.MethodPost:
		return createAction
	case rt.method == http.MethodPatch && rt.kind == collectionRoute:
		return batchAction
	case rt.method == http.MethodPatch:
		return editAction
	}
	return deleteAction
}

// denied is the 403 of a request the caller's roles do not allow.
func Denied() *problem.Problem {
	return &problem.Problem{Kind: problem.Denied, Title: "access denied exception", Detail: "No access to this type of entities."}
}
