package main

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
)

// included loads what include=accounts,owner adds to a page of contacts: the
// accounts (and their contacts linkage) and the owners (and their roles), in
// that order, each by key.
func (f readFloor) included(ctx context.Context, base string, page []contact, accountsOf map[int64][]string) ([]any, error) {
	var accountIDs, ownerIDs []int64
	for _, c := range page {
		for _, id := range accountsOf[c.id] {
			n, _ := strconv.ParseInt(id, 10, 64)
			accountIDs = append(accountIDs, n)
		}
		if c.owner.Valid {
			ownerIDs = append(ownerIDs, c.owner.Int64)
		}
	}
	included := []any{}
	accounts, err := f.accounts(ctx, uniqueSorted(accountIDs))
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(accounts))
	for i, a := range accounts {
		ids[i] = a.id
	}
	contactsOf, err := f.links(ctx, "contactsOfAccounts", ids)
	if err != nil {
		return nil, err
	}
	for _, a := range accounts {
		included = append(included, a.resource(base, contactsOf[a.id]))
	}
	users, err := f.users(ctx, uniqueSorted(ownerIDs))
	if err != nil {
		return nil, err
	}
	ids = make([]int64, len(users))
	for i, u := range users {
		ids[i] = u.id
	}
	rolesOf, err := f.links(ctx, "rolesOfUsers", ids)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		id := strconv.FormatInt(u.id, 10)
		self := base + "/users/" + id
		included = append(included, resource[userAttributes, userRelationships]{Type: "users", ID: id, Links: selfLink{self},
			Attributes: u.a, Relationships: userRelationships{
				Organization: one(self, "organization", "organizations", &mainOrg),
				Owner:        one(self, "owner", "businessunits", idText(u.owner)),
				UserRoles:    many(self, "userRoles", "userroles", rolesOf[u.id]),
			}})
	}
	return included, nil
}

func uniqueSorted(ids []int64) []int64 {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// account is an accounts row.
type account struct {
	id                              int64
	a                               accountAttributes
	owner, defaultContact, referred sql.NullInt64
}

func scanAccount(rs rows, extra ...any) (account, error) {
	var a account
	var created, updated timeText
	err := rs.Scan(append([]any{&a.id, &a.a.Name, &a.a.ExternalID, &a.owner, &a.defaultContact, &a.referred, &created, &updated}, extra...)...)
	if created.Value != nil && updated.Value != nil {
		a.a.CreatedAt, a.a.UpdatedAt = *created.Value, *updated.Value
	}
	return a, err
}

// resource is the account's JSON:API resource with these contacts.
func (a account) resource(base string, contacts []string) resource[accountAttributes, accountRelationships] {
	id := strconv.FormatInt(a.id, 10)
	self := base + "/accounts/" + id
	return resource[accountAttributes, accountRelationships]{Type: "accounts", ID: id, Links: selfLink{self},
		Attributes: a.a, Relationships: accountRelationships{
			Contacts:       many(self, "contacts", "contacts", contacts),
			DefaultContact: one(self, "defaultContact", "contacts", idText(a.defaultContact)),
			Organization:   one(self, "organization", "organizations", &mainOrg),
			Owner:          one(self, "owner", "users", idText(a.owner)),
			ReferredBy:     one(self, "referredBy", "accounts", idText(a.referred)),
		}}
}

func (f readFloor) accounts(ctx context.Context, ids []int64) ([]account, error) {
	return byKeys(ctx, f.db, "accounts", ids, func(rs rows) (account, error) { return scanAccount(rs) })
}

// byKeys runs the statement name, which reads the organization's rows of one
// table whose keys are ids, and scans each row with scan: the included
// accounts and users are read the same way.
func byKeys[T any](ctx context.Context, db *floorDB, name string, ids []int64, scan func(rows) (T, error)) ([]T, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rs, err := db.query(ctx, name, floorOrg, db.ids(ids))
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []T
	for rs.Next() {
		v, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rs.Err()
}

// user is a users row.
type user struct {
	id    int64
	a     userAttributes
	owner sql.NullInt64
}

func (f readFloor) users(ctx context.Context, ids []int64) ([]user, error) {
	return byKeys(ctx, f.db, "users", ids, scanUser)
}

func scanUser(rs rows) (user, error) {
	var u user
	var birthday dateText
	var emails rawJSON
	var lastLogin, created, updated timeText
	if err := rs.Scan(&u.id, &u.a.Username, &u.a.Email, &u.a.FirstName, &u.a.LastName, &u.a.NamePrefix, &u.a.MiddleName,
		&u.a.NameSuffix, &u.a.Phone, &u.a.Title, &u.a.GoogleID, &birthday, &u.a.Enabled, &emails, &u.a.ExternalID,
		&lastLogin, &u.a.LoginCount, &u.owner, &created, &updated); err != nil {
		return u, err
	}
	u.a.Birthday, u.a.Emails, u.a.LastLogin = birthday.Value, emails.Value, lastLogin.Value
	if created.Value != nil && updated.Value != nil {
		u.a.CreatedAt, u.a.UpdatedAt = *created.Value, *updated.Value
	}
	return u, nil
}
