package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
)

// This file holds the typed queries for who acts: organizations, users and
// their roles. They are methods of Conn, like the generic queries, so that a
// caller (LoadDemo, the admin commands) can group several in one Tx.

// CreateOrganization adds an enabled organization; *UniqueError when the
// name is taken.
func (c *Conn) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	ts := now()
	o := &Organization{Name: name, Enabled: true, CreatedAt: ts, UpdatedAt: ts}
	err := c.atomic(ctx, func(c *Conn) error {
		_, err := c.idb.NewInsert().Model(o).Exec(ctx)
		return c.s.mapError("insert", "organizations", err)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// OrganizationByName finds an organization by its (unique) name, for the
// admin commands that name organizations; ErrNotFound when there is none.
func (c *Conn) OrganizationByName(ctx context.Context, name string) (*Organization, error) {
	o := new(Organization)
	if err := c.one(ctx, o, "organizations", "? = ?", bun.Ident("name"), name); err != nil {
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
func (c *Conn) CreateUser(ctx context.Context, u *User, roles []string) error {
	ts := now()
	if u.CreatedAt.IsZero() {
		u.CreatedAt = ts
	}
	if u.UpdatedAt.IsZero() {
		u.UpdatedAt = ts
	}
	return c.atomic(ctx, func(c *Conn) error {
		if _, err := c.idb.NewInsert().Model(u).Exec(ctx); err != nil {
			return c.s.mapError("insert", "users", err)
		}
		if len(roles) == 0 {
			return nil
		}
		links := make([]UserUserRole, len(roles))
		for i, r := range roles {
			links[i] = UserUserRole{UserID: u.ID, RoleCode: r}
		}
		_, err := c.idb.NewInsert().Model(&links).Exec(ctx)
		return c.s.mapError("insert", "user_userroles", err)
	})
}

// UserByID loads a user; ErrNotFound when there is none.
func (c *Conn) UserByID(ctx context.Context, id int64) (*User, error) {
	u := new(User)
	if err := c.one(ctx, u, "users", "? = ?", bun.Ident("id"), id); err != nil {
		return nil, err
	}
	return u.utc(), nil
}

// UserByLogin finds the user who signs in as login: the user with that
// username, else the one with that email. Emails compare without regard to
// case (people and identity providers write them either way), preferring an
// exact match when several differ only in case. ErrNotFound when none fits.
func (c *Conn) UserByLogin(ctx context.Context, login string) (*User, error) {
	if login == "" {
		return nil, ErrNotFound
	}
	u := new(User)
	err := c.one(ctx, u, "users", "? = ?", bun.Ident("username"), login)
	if err == nil {
		return u.utc(), nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var users []User
	err = c.idb.NewSelect().Model(&users).
		Where("lower(?) = lower(?)", bun.Ident("email"), login).
		OrderExpr("? ASC", bun.Ident("id")).Limit(16).Scan(ctx)
	if err != nil {
		return nil, c.s.mapError("select", "users", err)
	}
	switch {
	case len(users) == 1:
		return users[0].utc(), nil
	case len(users) > 1:
		for i := range users {
			if users[i].Email == login {
				return users[i].utc(), nil
			}
		}
	}
	return nil, ErrNotFound
}

// UserRoles returns the codes of a user's roles, sorted (none: empty).
func (c *Conn) UserRoles(ctx context.Context, userID int64) ([]string, error) {
	roles := []string{}
	err := c.idb.NewSelect().Table("user_userroles").Column("role_code").
		Where("? = ?", bun.Ident("user_id"), userID).
		OrderExpr("? ASC", bun.Ident("role_code")).Scan(ctx, &roles)
	if err != nil {
		return nil, c.s.mapError("select", "user_userroles", err)
	}
	return roles, nil
}

// one scans the single row of model's table matching where into model;
// ErrNotFound when there is none.
func (c *Conn) one(ctx context.Context, model any, table, where string, args ...any) error {
	err := c.idb.NewSelect().Model(model).Where(where, args...).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return c.s.mapError("select", table, err)
	}
	return nil
}

// utc gives the user's times in UTC, as every time storage returns is.
func (u *User) utc() *User {
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	if u.LastLogin != nil {
		t := u.LastLogin.UTC()
		u.LastLogin = &t
	}
	return u
}
