package authstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/secret"
)

// This file holds the typed queries of authentication: OAuth clients and the
// keys that sign access tokens.

// errClientApp reports a client whose App and UserID do not pair up.
var errClientApp = errors.New("authstore: a back-office client needs a user, a storefront client has none")

// CreateClient inserts cl. An empty ID gets a random one (secret.NewClientID).
// A back-office client's organization is its user's: OrganizationID may be
// left 0 and is filled in, and a different one is refused. cl is stored as
// given otherwise, Enabled and Demo included. SecretHash must be a
// storage/secret hash. A taken id is a *UniqueError; a missing user or
// organization a *ForeignKeyError.
func (a *Store) CreateClient(ctx context.Context, cl *Client) error {
	switch {
	case cl.App == AppBackoffice && cl.UserID == nil, cl.App == AppStorefront && cl.UserID != nil:
		return errClientApp
	case cl.App != AppBackoffice && cl.App != AppStorefront:
		return fmt.Errorf("authstore: client application %q (want %s or %s)", cl.App, AppBackoffice, AppStorefront)
	case cl.SecretHash == "":
		return errors.New("authstore: a client needs a secret hash")
	}
	if cl.ID == "" {
		cl.ID = secret.NewClientID()
	}
	ts := storage.Now()
	if cl.CreatedAt.IsZero() {
		cl.CreatedAt = ts
	}
	if cl.UpdatedAt.IsZero() {
		cl.UpdatedAt = ts
	}
	return a.atomic(ctx, func(a *Store) error {
		if cl.UserID != nil {
			u, err := a.UserByID(ctx, *cl.UserID)
			if errors.Is(err, ErrNotFound) {
				return &storage.ForeignKeyError{Table: "clients"}
			}
			if err != nil {
				return err
			}
			if cl.OrganizationID == 0 {
				cl.OrganizationID = u.OrganizationID
			}
			if cl.OrganizationID != u.OrganizationID {
				return fmt.Errorf("authstore: client of organization %d acting as a user of organization %d", cl.OrganizationID, u.OrganizationID)
			}
		}
		_, err := a.c.Bun().NewInsert().Model(cl).Exec(ctx)
		return a.c.MapError("insert", "clients", err)
	})
}

// ClientByID loads a client; ErrNotFound when there is none.
func (a *Store) ClientByID(ctx context.Context, id string) (*Client, error) {
	cl := new(Client)
	if err := a.c.One(ctx, cl, "clients", "? = ?", bun.Ident("id"), id); err != nil {
		return nil, err
	}
	cl.CreatedAt, cl.UpdatedAt = cl.CreatedAt.UTC(), cl.UpdatedAt.UTC()
	return cl, nil
}

// SetClientEnabled enables or disables a client (`entityapi client
// disable`); ErrNotFound when there is none. Servers notice within their
// cache time (docs/decisions.md §8: at most 30 s).
func (a *Store) SetClientEnabled(ctx context.Context, id string, enabled bool) error {
	return a.atomic(ctx, func(a *Store) error {
		res, err := a.c.Bun().NewUpdate().Table("clients").
			Set("? = ?", bun.Ident("enabled"), enabled).
			Set("? = ?", bun.Ident("updated_at"), storage.Now()).
			Where("? = ?", bun.Ident("id"), id).Exec(ctx)
		if err != nil {
			return a.c.MapError("update", "clients", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(ErrNotFound, err)
		}
		return nil
	})
}

// AddSigningKey stores a signing key; an empty CreatedAt becomes now. A
// taken kid is a *UniqueError.
func (a *Store) AddSigningKey(ctx context.Context, k *SigningKey) error {
	if k.KID == "" || k.PrivatePEM == "" {
		return errors.New("authstore: a signing key needs a kid and a private key")
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = storage.Now()
	}
	return a.atomic(ctx, func(a *Store) error {
		_, err := a.c.Bun().NewInsert().Model(k).Exec(ctx)
		return a.c.MapError("insert", "signing_keys", err)
	})
}

// SigningKeys returns every signing key, newest first: by created_at, then
// by kid (both descending), so that keys made within one second still have
// one order when their kids sort by time.
func (a *Store) SigningKeys(ctx context.Context) ([]SigningKey, error) {
	keys := []SigningKey{}
	err := a.c.Bun().NewSelect().Model(&keys).
		OrderExpr("? DESC, ? DESC", bun.Ident("created_at"), bun.Ident("kid")).Scan(ctx)
	if err != nil {
		return nil, a.c.MapError("select", "signing_keys", err)
	}
	for i := range keys {
		keys[i].CreatedAt = keys[i].CreatedAt.UTC()
	}
	return keys, nil
}

// ResealSigningKeys rewrites, in one transaction, the private keys that fn
// changes: fn gets each stored key and returns its new stored value and
// whether it changed. An error of fn rolls everything back and is returned.
// It returns how many keys changed. (The key-encryption of the signing keys,
// server/auth, seals plain keys with it.)
func (a *Store) ResealSigningKeys(ctx context.Context, fn func(k SigningKey) (string, bool, error)) (int, error) {
	changed := 0
	err := a.atomic(ctx, func(a *Store) error {
		keys, err := a.SigningKeys(ctx)
		if err != nil {
			return err
		}
		changed = 0
		for _, k := range keys {
			value, ok, err := fn(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if _, err := a.c.Bun().NewUpdate().Table("signing_keys").Set("private_pem = ?", value).
				Where("kid = ?", k.KID).Exec(ctx); err != nil {
				return a.c.MapError("update", "signing_keys", err)
			}
			changed++
		}
		return nil
	})
	return changed, err
}
