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
var models = []any{
	(*Organization)(nil),
	(*Country)(nil),
	(*Region)(nil),
	(*WeightUnit)(nil),
	(*TaxJurisdiction)(nil),
	(*Account)(nil),
}

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
type Account struct {
	bun.BaseModel `bun:"table:accounts"`

	ID             int64     `bun:"id,pk,autoincrement"`
	OrganizationID int64     `bun:"organization_id,notnull"`
	Name           string    `bun:"name,notnull"`
	ExternalID     *string   `bun:"external_id"`
	CreatedAt      time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
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
