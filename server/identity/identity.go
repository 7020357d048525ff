// Package identity holds who is calling, as a plain value: server/auth
// produces it from a token and the engine reads it, so neither imports the
// other for it.
package identity

import "strconv"

// Principal is who a valid token speaks for. A back-office principal is a
// user (UserID, that user's Org and Roles) acting through ClientID; a
// storefront principal is the client itself (UserID 0, no Roles).
type Principal struct {
	App      string // "backoffice" or "storefront" (storage/authstore's AppBackoffice, AppStorefront)
	ClientID string
	UserID   int64
	Org      int64
	Roles    []string // sorted role codes
}

// Guest tells whether the principal is a storefront guest: a reader
// without a token, of no client and no user.
func (p *Principal) Guest() bool { return p.ClientID == "" && p.UserID == 0 }

// Key names the principal in one string, stable across processes: its
// application, client and user. storage keys a principal's read fences by
// it (storage.WithPrincipal).
func (p *Principal) Key() string {
	return p.App + "\x1f" + p.ClientID + "\x1f" + strconv.FormatInt(p.UserID, 10)
}

// Roles are the back office's roles, the codes the migrations write to the
// userroles table (docs/decisions.md §8): the roles the documents'
// x-entityapi readers, x-readers and x-writers may name.
var Roles = []string{"ROLE_ADMINISTRATOR", "ROLE_MANAGER", "ROLE_USER", "ROLE_INTEGRATION", "ROLE_AUDITOR"}
