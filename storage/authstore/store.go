// Package authstore keeps the records of authentication (docs/decisions.md §8):
// OAuth clients, the keys that sign access tokens, counts of failed
// credentials, and the users and organizations as sign-in and the admin
// commands see them. It sits beside storage, on storage's connections,
// transactions and errors, so that server/auth needs this package only and
// storage keeps the generic tables.
package authstore

import (
	"context"

	"github.com/entityapi/entityapi/storage"
)

// Store reads and writes the authentication records of one database. Build
// one per database and share it (a server has one): its FailureCounter
// lives in it.
type Store struct {
	c        *storage.Conn
	failures *failureStore
}

// New returns the authentication records of s's database.
func New(s *storage.Store) *Store {
	return &Store{c: s.Conn, failures: &failureStore{oneWriter: s.Features().OneWriter, db: s.Conn}}
}

// Unavailable tells whether err says the database cannot work now
// (storage.Conn.Unavailable): the token endpoint answers it 503.
func (a *Store) Unavailable(err error) bool { return a.c.Unavailable(err) }

// atomic runs fn on a Store whose statements commit together: a's own
// transaction when it is in one, else a new one (see storage.Conn.Atomic).
func (a *Store) atomic(ctx context.Context, fn func(a *Store) error) error {
	return a.c.Atomic(ctx, func(c *storage.Conn) error { return fn(&Store{c: c, failures: a.failures}) })
}

// tx runs fn on a Store in a transaction of its own (a savepoint when a is
// in one already; see storage.Conn.Tx).
func (a *Store) tx(ctx context.Context, fn func(a *Store) error) error {
	return a.c.Tx(ctx, func(c *storage.Conn) error { return fn(&Store{c: c, failures: a.failures}) })
}
