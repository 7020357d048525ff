package storage

import (
	"context"
	"encoding/json"
)

// LoadDemoRecords prepares a database for trying entityapi out (`entityapi
// serve --demo`): a few records in the default organization (the demo
// principals are storage/authstore's LoadDemo). They are added once: when
// the default organization has no accounts yet, so restarting with --demo
// changes nothing.
func (s *Store) LoadDemoRecords(ctx context.Context) error {
	accounts, _ := s.Table("accounts")
	units, _ := s.Table("weightunits")
	taxes, _ := s.Table("taxjurisdictions")
	const org = 1
	n, err := s.Count(ctx, Query{Table: accounts, Org: org})
	if err != nil || n > 0 {
		return err
	}
	return s.Tx(ctx, func(c *Conn) error {
		if _, err := c.InsertMany(ctx, accounts, org, []Row{
			{"name": "Acme Corporation", "external_id": "ACME-001"},
			{"name": "Globex Industries", "external_id": "GLOBEX-7"},
			{"name": "Initech", "external_id": nil},
		}); err != nil {
			return err
		}
		if _, err := c.InsertMany(ctx, units, org, []Row{
			{"code": "kg", "conversion_rates": json.RawMessage(`{"lbs":2.20462262}`)},
			{"code": "lbs", "conversion_rates": json.RawMessage(`{"kg":0.45359237}`)},
		}); err != nil {
			return err
		}
		_, err := c.InsertMany(ctx, taxes, org, []Row{
			{"code": "US-NY-NYC", "description": "New York City", "country_code": "US", "region_code": "US-NY",
				"zip_codes": json.RawMessage(`[{"from":"10001","to":"10292"}]`)},
			{"code": "DE-BY", "description": "Bavaria", "country_code": "DE", "region_code": "DE-BY"},
		})
		return err
	})
}
