package authstore

import (
	"context"
	"errors"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
)

// This file holds the typed queries for who acts: organizations, users and
// their roles, as authentication and the admin commands need them (the
// generic queries serve the same tables as resources).

// CreateOrganization adds an enabled organization; *UniqueError when the
// name is taken.
func (a *Store) CreateOrganization(ctx context.Context, name string) (*storage.Organization, error) {
	ts := storage.Now()
	o := &storage.Organization{Name: name, Enabled: true, CreatedAt: ts, UpdatedAt: ts}
	err := a.atomic(ctx, func(a *Store) error {
		_, err := a.c.Bun().NewInsert().Model(o).Exec(ctx)
		return a.c.MapError("insert", "organizations", err)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// OrganizationByName finds an organization by its (unique) name, for the
// admin commands that name organizations; ErrNotFound when there is none.
func (a *Store) OrganizationByName(ctx context.Context, name string) (*storage.Organization, error) {
	o := new(storage.Organization)
	if err := a.c.One(ctx, o, "organizations", "? = ?", bun.Ident("name"), name); err != nil {
		return nil, err
	}
	o.CreatedAt, o.UpdatedAt = o.CreatedAt.UTC(), o.UpdatedAt.UTC()
	return o, nil
}

// CreateUser inserts u, sets u.ID, and gives the user roles (codes of the
// userroles catalogue), all in one transaction. u is stored as given:
// Enabled, Demo and PasswordHash (a storage/secret hash, or nil for a user
// who cannot sign in with a password) included. A taken username or email is
// a *UniqueError; an unknown role or organization a *ForeignKeyError.
func (a *Store) CreateUser(ctx context.Context, u *User, roles []string) error {
	ts := storage.Now()
	if u.CreatedAt.IsZero() {
		u.CreatedAt = ts
	}
	if u.UpdatedAt.IsZero() {
		u.UpdatedAt = ts
	}
	return a.atomic(ctx, func(a *Store) error {
		if _, err := a.c.Bun().NewInsert().Model(u).Exec(ctx); err != nil {
			return a.c.MapError("insert", "users", err)
		}
		if len(roles) == 0 {
			return nil
		}
		links := make([]storage.UserUserRole, len(roles))
		for i, r := range roles {
			links[i] = storage.UserUserRole{UserID: u.ID, RoleCode: r}
		}
		_, err := a.c.Bun().NewInsert().Model(&links).Exec(ctx)
		return a.c.MapError("insert", "user_userroles", err)
	})
}

// UserByID loads a user; ErrNotFound when there is none.
func (a *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	u := new(User)
	if err := a.c.One(ctx, u, "users", "? = ?", bun.Ident("id"), id); err != nil {
		return nil, err
	}
	return userUTC(u), nil
}

// UserByLogin finds the user who signs in as login: the user with that
// username, else the one with that email. Emails compare without regard to
// case (people and identity providers write them either way), preferring an
// exact match when several differ only in case. ErrNotFound when none fits.
func (a *Store) UserByLogin(ctx context.Context, login string) (*User, error) {
	if login == "" {
		return nil, ErrNotFound
	}
	u := new(User)
	err := a.c.One(ctx, u, "users", "? = ?", bun.Ident("username"), login)
	if err == nil {
		return userUTC(u), nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var users []User
	err = a.c.Bun().NewSelect().Model(&users).
		Where("lower(?) = lower(?)", bun.Ident("email"), login).
		OrderExpr("? ASC", bun.Ident("id")).Limit(16).Scan(ctx)
	if err != nil {
		return nil, a.c.MapError("select", "users", err)
	}
	switch {
	case len(users) == 1:
		return userUTC(&users[0]), nil
	case len(users) > 1:
		for i := range users {
			if users[i].Email == login {
				return userUTC(&users[i]), nil
			}
		}
	}
	return nil, ErrNotFound
}

// UserRoles returns the codes of a user's roles, sorted (none: empty).
func (a *Store) UserRoles(ctx context.Context, userID int64) ([]string, error) {
	roles := []string{}
	err := a.c.Bun().NewSelect().Table("user_userroles").Column("role_code").
		Where("? = ?", bun.Ident("user_id"), userID).
		OrderExpr("? ASC", bun.Ident("role_code")).Scan(ctx, &roles)
	if err != nil {
		return nil, a.c.MapError("select", "user_userroles", err)
	}
	return roles, nil
}

// userUTC gives the user's times in UTC, as every time storage returns is.
func userUTC(u *User) *User {
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	if u.LastLogin != nil {
		t := u.LastLogin.UTC()
		u.LastLogin = &t
	}
	return u
}
