package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// models lists every table the generic queries may touch. Each Bun model is
// the single declaration of its table's columns for Go code: Table metadata is
// derived from it (see buildTables), and migrations create the same columns.
// A date column is tagged `type:date` (KindDate); json.RawMessage is KindJSON.
// The models of the tables the documents serve (entityModels, and joinModels
// for their join tables) are listed by make generate (scripts/genmodels, in
// models.gen.go), found by their table tags; the tables only hand-written code
// serves are listed here.
var models = slices.Concat(entityModels, []any{
	(*Client)(nil),
	(*SigningKey)(nil),
	(*AsyncOperation)(nil),
})

// The chunks and errors of asynchronous operations (AsyncOperationChunk,
// AsyncOperationError) have composite keys and are read and written only
// by the typed queries of operations.go, so they are in neither list.

// Localization is one language the storefront answers in (migration 0005
// fixes the four of DESIGN.md §10).
type Localization struct {
	bun.BaseModel `bun:"table:localizations"`

	ID             int64  `bun:"id,pk"`
	Title          string `bun:"title,notnull"`
	LanguageCode   string `bun:"language_code,notnull"`
	FormattingCode string `bun:"formatting_code,notnull"`
}

// Currency is an ISO 4217 currency, loaded by migration 0005.
type Currency struct {
	bun.BaseModel `bun:"table:currencies"`

	Code   string `bun:"code,pk"`
	Name   string `bun:"name,notnull"`
	Symbol string `bun:"symbol,notnull"`
}

// The chunks and errors of asynchronous operations (AsyncOperationChunk,
// AsyncOperationError) have composite keys and are read and written only
// by the typed queries of operations.go, so they are in neither list.

// Organization owns every scoped record. Migration 0001 creates "Main" as id 1.
type Organization struct {
	bun.BaseModel `bun:"table:organizations"`

	ID          int64     `bun:"id,pk,autoincrement"`
	Name        string    `bun:"name,notnull"`
	Description *string   `bun:"description"`
	Enabled     bool      `bun:"enabled,notnull"`
	CreatedAt   time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt   time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// Country is an ISO 3166-1 country, loaded from isodata by migration 0001.
type Country struct {
	bun.BaseModel `bun:"table:countries"`

	Code   string `bun:"code,pk"`
	ISO3   string `bun:"iso3,notnull"`
	NameEN string `bun:"name_en,notnull"`
	NameDE string `bun:"name_de,notnull"`
	NameFR string `bun:"name_fr,notnull"`
	NameES string `bun:"name_es,notnull"`
}

// Region is an ISO 3166-2 subdivision such as "US-NY", loaded with the countries.
type Region struct {
	bun.BaseModel `bun:"table:regions"`

	Code        string `bun:"code,pk"`
	CountryCode string `bun:"country_code,notnull"`
	SubCode     string `bun:"sub_code,notnull"`
	NameEN      string `bun:"name_en,notnull"`
	NameDE      string `bun:"name_de,notnull"`
	NameFR      string `bun:"name_fr,notnull"`
	NameES      string `bun:"name_es,notnull"`
}

// WeightUnit is a unit whose code is its identifier within an organization.
type WeightUnit struct {
	bun.BaseModel `bun:"table:weightunits"`

	OrganizationID  int64           `bun:"organization_id,pk"`
	Code            string          `bun:"code,pk"`
	ConversionRates json.RawMessage `bun:"conversion_rates"`
	CreatedAt       time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt       time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// TaxJurisdiction is a tax area: a country, optionally a region and zip codes.
type TaxJurisdiction struct {
	bun.BaseModel `bun:"table:taxjurisdictions"`

	ID             int64           `bun:"id,pk,autoincrement"`
	OrganizationID int64           `bun:"organization_id,notnull"`
	Code           string          `bun:"code,notnull"`
	Description    *string         `bun:"description"`
	RegionText     *string         `bun:"region_text"`
	ZipCodes       json.RawMessage `bun:"zip_codes"`
	CountryCode    string          `bun:"country_code,notnull"`
	RegionCode     *string         `bun:"region_code"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// Account is a customer account; external_id is unique per organization.
// Migration 0002 added the owner (a user), the default contact and the
// referring account.
type Account struct {
	bun.BaseModel `bun:"table:accounts"`

	ID               int64     `bun:"id,pk,autoincrement"`
	OrganizationID   int64     `bun:"organization_id,notnull"`
	Name             string    `bun:"name,notnull"`
	ExternalID       *string   `bun:"external_id"`
	OwnerID          *int64    `bun:"owner_id"`
	DefaultContactID *int64    `bun:"default_contact_id"`
	ReferredByID     *int64    `bun:"referred_by_id"`
	CreatedAt        time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt        time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// UserRole is a role of the global, read-only catalogue that migration 0002
// fills: ROLE_ADMINISTRATOR, ROLE_MANAGER and ROLE_USER.
type UserRole struct {
	bun.BaseModel `bun:"table:userroles"`

	Code  string `bun:"code,pk"`
	Label string `bun:"label,notnull"`
}

// BusinessUnit is a unit of an organization; owner_id is its parent unit.
type BusinessUnit struct {
	bun.BaseModel `bun:"table:businessunits"`

	ID             int64     `bun:"id,pk,autoincrement"`
	OrganizationID int64     `bun:"organization_id,notnull"`
	Name           string    `bun:"name,notnull"`
	Phone          *string   `bun:"phone"`
	Website        *string   `bun:"website"`
	Email          *string   `bun:"email"`
	Fax            *string   `bun:"fax"`
	OwnerID        *int64    `bun:"owner_id"`
	CreatedAt      time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// User is a back-office user. username and email are unique across all
// organizations, external_id per organization; owner_id is the user's
// business unit. password_hash is never to be shown. demo marks the users
// LoadDemo made, which a server refuses unless it runs with --demo.
type User struct {
	bun.BaseModel `bun:"table:users"`

	ID             int64           `bun:"id,pk,autoincrement"`
	OrganizationID int64           `bun:"organization_id,notnull"`
	Username       string          `bun:"username,notnull"`
	Email          string          `bun:"email,notnull"`
	FirstName      string          `bun:"first_name,notnull"`
	LastName       string          `bun:"last_name,notnull"`
	NamePrefix     *string         `bun:"name_prefix"`
	MiddleName     *string         `bun:"middle_name"`
	NameSuffix     *string         `bun:"name_suffix"`
	Phone          *string         `bun:"phone"`
	Title          *string         `bun:"title"`
	GoogleID       *string         `bun:"google_id"`
	Birthday       *time.Time      `bun:"birthday,type:date"`
	Enabled        bool            `bun:"enabled,notnull"`
	Demo           bool            `bun:"demo,notnull"`
	Emails         json.RawMessage `bun:"emails"`
	ExternalID     *string         `bun:"external_id"`
	LastLogin      *time.Time      `bun:"last_login"`
	LoginCount     int64           `bun:"login_count,notnull"`
	PasswordHash   *string         `bun:"password_hash"`
	OwnerID        *int64          `bun:"owner_id"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// UserUserRole gives a user a role (join table: user_id, role_code).
type UserUserRole struct {
	bun.BaseModel `bun:"table:user_userroles"`

	UserID   int64  `bun:"user_id,pk"`
	RoleCode string `bun:"role_code,pk"`
}

// Contact is a person, usually of one or more accounts. owner_id and
// assigned_to_id are users, reports_to_id another contact.
type Contact struct {
	bun.BaseModel `bun:"table:contacts"`

	ID             int64           `bun:"id,pk,autoincrement"`
	OrganizationID int64           `bun:"organization_id,notnull"`
	NamePrefix     *string         `bun:"name_prefix"`
	FirstName      *string         `bun:"first_name"`
	MiddleName     *string         `bun:"middle_name"`
	LastName       *string         `bun:"last_name"`
	NameSuffix     *string         `bun:"name_suffix"`
	Gender         *string         `bun:"gender"`
	Birthday       *time.Time      `bun:"birthday,type:date"`
	Description    *string         `bun:"description"`
	JobTitle       *string         `bun:"job_title"`
	Emails         json.RawMessage `bun:"emails"`
	Phones         json.RawMessage `bun:"phones"`
	PrimaryEmail   *string         `bun:"primary_email"`
	PrimaryPhone   *string         `bun:"primary_phone"`
	ExternalID     *string         `bun:"external_id"`
	OwnerID        *int64          `bun:"owner_id"`
	AssignedToID   *int64          `bun:"assigned_to_id"`
	ReportsToID    *int64          `bun:"reports_to_id"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// The client applications (App) that may ask for access tokens.
const (
	AppBackoffice = "backoffice"
	AppStorefront = "storefront"
)

// Client is an OAuth client of one application (DESIGN.md §8). A back-office
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

// AsyncOperation is an asynchronous batch request (DESIGN.md §7): its state
// (one of the Operation... constants), how many chunks it has and how many
// are done, and the summed counts of the done chunks. OwnerID is the user who
// sent it (nil once that user is deleted). StartedAt is set when it becomes
// running, FinishedAt when it ends. See operations.go.
type AsyncOperation struct {
	bun.BaseModel `bun:"table:async_operations"`

	ID             int64      `bun:"id,pk,autoincrement"`
	OrganizationID int64      `bun:"organization_id,notnull"`
	OwnerID        *int64     `bun:"owner_id"`
	EntityType     string     `bun:"entity_type,notnull"`
	Status         string     `bun:"status,notnull"`
	ChunkCount     int64      `bun:"chunk_count,notnull"`
	ChunksDone     int64      `bun:"chunks_done,notnull"`
	ReadCount      int64      `bun:"read_count,notnull"`
	WriteCount     int64      `bun:"write_count,notnull"`
	ErrorCount     int64      `bun:"error_count,notnull"`
	CreateCount    int64      `bun:"create_count,notnull"`
	UpdateCount    int64      `bun:"update_count,notnull"`
	AggregateMS    int64      `bun:"aggregate_ms,notnull"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
	StartedAt      *time.Time `bun:"started_at"`
	FinishedAt     *time.Time `bun:"finished_at"`
}

// AsyncOperationChunk is one staged chunk of an operation, numbered from 1.
// Items holds its primary items and Included its included items (nil when
// none), each a JSON array of ChunkItem. Done marks a chunk whose writes,
// counts and errors are committed; its items are then dropped.
type AsyncOperationChunk struct {
	bun.BaseModel `bun:"table:async_operation_chunks"`

	OperationID int64           `bun:"operation_id,pk"`
	Number      int             `bun:"number,pk"`
	Items       json.RawMessage `bun:"items,notnull"`
	Included    json.RawMessage `bun:"included"`
	Done        bool            `bun:"done,notnull"`
}

// ChunkItem is one element of AsyncOperationChunk.Items or .Included: the
// item's zero-based index in the request's data (or included) array and its
// JSON text. A staged item never holds a password in plain text: the server
// replaces it by its hash before staging (Hashed), or, when the password
// breaks a rule that needs its plain value, drops it and stages the rule's
// problems instead, to be reported as the item's errors.
type ChunkItem struct {
	Index    int             `json:"index"`
	Raw      json.RawMessage `json:"raw"`
	Hashed   bool            `json:"hashed,omitempty"`
	Problems []ChunkProblem  `json:"problems,omitempty"`
}

// ChunkProblem is a constraint violation (status 400) found in an item
// before it was staged; Pointer points into the original request.
type ChunkProblem struct {
	Title   string `json:"title"`
	Detail  string `json:"detail,omitempty"`
	Pointer string `json:"pointer"`
}

// AsyncOperationError is one error of an operation, shown as the
// asyncoperationerrors resource "<op>-<chunk>-<n>": Chunk is the chunk's
// number (0: the whole request), N numbers the errors within it from 1.
// Status is an HTTP status; Pointer points into the original request.
type AsyncOperationError struct {
	bun.BaseModel `bun:"table:async_operation_errors"`

	OperationID  int64   `bun:"operation_id,pk"`
	Chunk        int     `bun:"chunk,pk"`
	N            int     `bun:"n,pk"`
	Status       int     `bun:"status,notnull"`
	Title        string  `bun:"title,notnull"`
	Detail       *string `bun:"detail"`
	Pointer      *string `bun:"pointer"`
	PropertyPath *string `bun:"property_path"`
}

// AccountContact links an account and a contact (join table: account_id,
// contact_id).
type AccountContact struct {
	bun.BaseModel `bun:"table:account_contacts"`

	AccountID int64 `bun:"account_id,pk"`
	ContactID int64 `bun:"contact_id,pk"`
}

// Organization loads one organization, for callers that need its fields as Go
// values (the caller's organization, whether it is enabled) rather than a Row.
func (s *Store) Organization(ctx context.Context, id int64) (*Organization, error) {
	o := new(Organization)
	err := s.db.NewSelect().Model(o).Where("? = ?", bun.Ident("id"), id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("storage: organization %d: %w", id, err)
	}
	o.CreatedAt = o.CreatedAt.UTC()
	o.UpdatedAt = o.UpdatedAt.UTC()
	return o, nil
}
