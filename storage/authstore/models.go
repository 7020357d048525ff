package authstore

import (
	"time"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
)

// The Bun models of authentication records: their tables are created by
// storage's migrations, and only this package's queries touch them. Users
// and organizations are generic tables (resources of the back office), so
// their models stay storage's; User is named here too so that callers of
// this package need not import storage for it.

// User is a back-office user as authentication sees it: storage.User.
type User = storage.User

// ErrNotFound is storage's: a client, user or organization that does not
// exist. Named here so that callers of this package need not import storage.
var ErrNotFound = storage.ErrNotFound

// The client applications (App) that may ask for access tokens.
const (
	AppBackoffice = "backoffice"
	AppStorefront = "storefront"
)

// Client is an OAuth client of one application (docs/decisions.md §8). A back-office
// client acts as its user (UserID) in that user's organization; a storefront
// client has no user and acts as itself in OrganizationID. Only the bcrypt
// hash of its secret is kept (storage/secret).
type Client struct {
	bun.BaseModel `bun:"table:clients"`

	ID             string    `bun:"id,pk"`
	OrganizationID int64     `bun:"organization_id,notnull"`
	SecretHash     string    `bun:"secret_hash,notnull"`
	App            string    `bun:"app,notnull"`
	Name           string    `bun:"name,notnull"`
	UserID         *int64    `bun:"user_id"`
	Enabled        bool      `bun:"enabled,notnull"`
	Demo           bool      `bun:"demo,notnull"`
	CreatedAt      time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// SigningKey is an RSA key that signs access tokens, kept in the database so
// that every process signs and verifies with the same set. PrivatePEM is a
// PKCS #8 "PRIVATE KEY" block; it must never leave the server.
type SigningKey struct {
	bun.BaseModel `bun:"table:signing_keys"`

	KID        string    `bun:"kid,pk"`
	PrivatePEM string    `bun:"private_pem,notnull"`
	CreatedAt  time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}
