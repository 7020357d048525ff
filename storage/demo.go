package storage

import (
	"context"
	"encoding/json"
	"fmt"
)

// LoadDemoRecords prepares a database for trying entityapi out (`entityapi
// serve --demo`): a few records in the default organization (the demo
// principals are storage/authstore's LoadDemo). They are added once: when
// the default organization has no accounts yet, so restarting with --demo
// changes nothing.
//
// The documents' examples name these records (accounts 1 to 3, contacts 1
// and 2, business units 1 and 2, weight units kg and lbs, tax jurisdictions
// 1 and 2), so that a request copied from a docs page, or a contract test
// generated from the documents (docs/contract.md), works on a fresh demo.
// On a fresh database both SQLite and PostgreSQL number them from 1, in the
// order they are inserted here.
func (s *Store) LoadDemoRecords(ctx context.Context) error {
	accounts, _ := s.Table("accounts")
	const org = 1
	n, err := s.Count(ctx, Query{Table: accounts, Org: org})
	if err != nil || n > 0 {
		return err
	}
	return s.Tx(ctx, func(c *Conn) error { return c.insertDemo(ctx, org) })
}

// insertDemo inserts the demo records of org in one transaction: the
// business units and contacts first, so that the accounts can name their
// default contacts (and Initech the account that referred it), then the
// accounts' contacts, weight units and tax jurisdictions.
func (c *Conn) insertDemo(ctx context.Context, org int64) error {
	units, _ := c.s.Table("businessunits")
	contacts, _ := c.s.Table("contacts")
	accounts, _ := c.s.Table("accounts")
	weights, _ := c.s.Table("weightunits")
	taxes, _ := c.s.Table("taxjurisdictions")
	links, _ := c.s.JoinTable("account_contacts")
	parent, err := c.InsertMany(ctx, units, org, []Row{{"name": "Main"}})
	if err != nil {
		return err
	}
	if _, err := c.InsertMany(ctx, units, org, []Row{
		{"name": "Sales", "email": "sales@example.com", "phone": "+1 212 555 0100", "owner_id": parent[0]},
	}); err != nil {
		return err
	}
	people, err := c.InsertMany(ctx, contacts, org, []Row{
		{"name_prefix": "Ms.", "first_name": "Jane", "last_name": "Smith", "gender": "female", "job_title": "Head of Purchasing",
			"primary_email": "jane.smith@acme.example", "emails": json.RawMessage(`[{"email":"jane.smith@acme.example"}]`),
			"primary_phone": "+1 212 555 0142", "phones": json.RawMessage(`[{"phone":"+1 212 555 0142"}]`), "external_id": "CRM-0012"},
		{"first_name": "Hank", "last_name": "Scorpio", "gender": "male", "job_title": "Chief Executive Officer",
			"primary_email": "hank.scorpio@globex.example", "emails": json.RawMessage(`[{"email":"hank.scorpio@globex.example"}]`),
			"external_id": "CRM-0007"},
	})
	if err != nil {
		return err
	}
	firms, err := c.InsertMany(ctx, accounts, org, []Row{
		{"name": "Acme Corporation", "external_id": "ACME-001", "default_contact_id": people[0]},
		{"name": "Globex Industries", "external_id": "GLOBEX-7", "default_contact_id": people[1]},
	})
	if err != nil {
		return err
	}
	if _, err := c.InsertMany(ctx, accounts, org, []Row{{"name": "Initech", "external_id": nil, "referred_by_id": firms[1]}}); err != nil {
		return err
	}
	if links == nil {
		return fmt.Errorf("storage: demo: no join table account_contacts")
	}
	if err := c.Link(ctx, links, [][2]any{{firms[0], people[0]}, {firms[1], people[1]}}); err != nil {
		return err
	}
	if _, err := c.InsertMany(ctx, weights, org, []Row{
		{"code": "kg", "conversion_rates": json.RawMessage(`{"lbs":2.20462262}`)},
		{"code": "lbs", "conversion_rates": json.RawMessage(`{"kg":0.45359237}`)},
	}); err != nil {
		return err
	}
	_, err = c.InsertMany(ctx, taxes, org, []Row{
		{"code": "US-NY-NYC", "description": "New York City", "country_code": "US", "region_code": "US-NY",
			"zip_codes": json.RawMessage(`[{"from":"10001","to":"10292"}]`)},
		{"code": "DE-BY", "description": "Bavaria", "country_code": "DE", "region_code": "DE-BY"},
	})
	return err
}
