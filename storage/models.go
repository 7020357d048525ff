package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// models lists every table the generic queries may touch. Each Bun model is
// the single declaration of its table's columns for Go code: Table metadata is
// derived from it (see buildTables), and migrations create the same columns.
// A date column is tagged `type:date` (KindDate); json.RawMessage is KindJSON.
// They are the models of the tables the documents serve, which make generate
// lists (scripts/genmodels, models.gen.go: entityModels, and joinModels for
// their join tables), found by their table tags.
var models = entityModels

// Localization is one language the storefront answers in (migration 0005
// fixes the four of docs/decisions.md §10).
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

// The records of batch operations (storage/jobs) and of authentication
// (storage/authstore) are read and written only by those packages' typed
// queries, so they are in neither list: the generic queries never see them.

// Organization owns every scoped record. Migration 0001 creates "Main" as id 1.
type Organization struct {
	bun.BaseModel `bun:"table:organizations"`

	ID          int64     `bun:"id,pk,autoincrement"`
	Name        string    `bun:"name,notnull"`
	Description *string   `bun:"description"`
	Enabled     bool      `bun:"enabled,notnull"`
	Version     int64     `bun:"version,notnull,default:1"`
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
	Version         int64           `bun:"version,notnull,default:1"`
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
	Version        int64           `bun:"version,notnull,default:1"`
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
	Version          int64     `bun:"version,notnull,default:1"`
	CreatedAt        time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt        time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// UserRole is a role of the global, read-only catalogue that migration 0002
// fills: ROLE_ADMINISTRATOR, ROLE_MANAGER and ROLE_USER; 0011 adds
// ROLE_INTEGRATION.
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
	Version        int64     `bun:"version,notnull,default:1"`
	CreatedAt      time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// User is a back-office user. username and email are unique across all
// organizations, external_id per organization; owner_id is the user's
// business unit. password_hash is never to be shown. demo marks the users
// storage/authstore's LoadDemo made, which a server refuses unless it runs
// with --demo. Users are a generic table (a back-office resource), so the
// model is storage's; storage/authstore names it for sign-in.
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
	Version        int64           `bun:"version,notnull,default:1"`
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
	Version        int64           `bun:"version,notnull,default:1"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
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

// Audit is a row of the audit history (migration 0021, storage/audit.go),
// written only by the audit triggers and read through GET /admin/api/audits.
type Audit struct {
	bun.BaseModel `bun:"table:audits"`

	ID             int64           `bun:"id,pk,autoincrement"`
	OrganizationID int64           `bun:"organization_id,notnull"`
	ResourceType   string          `bun:"resource_type,notnull"`
	ResourceID     string          `bun:"resource_id,notnull"`
	Action         string          `bun:"action,notnull"`
	Fields         json.RawMessage `bun:"fields,notnull"`
	ClientID       *string         `bun:"client_id"`
	UserID         *int64          `bun:"user_id"`
	RequestID      *string         `bun:"request_id"`
	LoggedAt       time.Time       `bun:"logged_at,notnull"`
}
