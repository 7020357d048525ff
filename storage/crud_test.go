package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// sameJSON compares JSON documents by meaning: PostgreSQL's JSONB does not
// keep spacing or key order.
func sameJSON(t *testing.T, got any, want string) bool {
	t.Helper()
	raw, ok := got.(json.RawMessage)
	if !ok {
		t.Errorf("JSON value is %T, want json.RawMessage", got)
		return false
	}
	var g, w any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Errorf("stored JSON %q: %v", raw, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(g, w)
}

func TestAccountRoundTrip(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		if accounts.Key != "id" || !accounts.AutoKey || !accounts.Scoped {
			t.Fatalf("accounts table = %+v", accounts)
		}
		if _, ok := accounts.Columns["organization_id"]; ok {
			t.Error("Columns includes organization_id")
		}
		begin := time.Now()
		key, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "Acme"})
		if err != nil {
			t.Fatalf("Insert: %v", err)
		}
		id, ok := key.(int64)
		if !ok || id < 1 {
			t.Fatalf("Insert key = %#v, want a positive int64", key)
		}
		row, err := s.Get(ctx, accounts, 1, id)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if row["id"] != id || row["name"] != "Acme" || row["external_id"] != nil {
			t.Errorf("Get = %v", row)
		}
		created := storagetest.CheckStamp(t, row["created_at"], begin)
		storagetest.CheckStamp(t, row["updated_at"], begin)
		if len(row) != len(accounts.Columns) {
			t.Errorf("row has %d columns, want %d: %v", len(row), len(accounts.Columns), row)
		}

		if _, err := s.Get(ctx, accounts, 2, id); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get in another organization: %v, want ErrNotFound", err)
		}
		if err := s.Update(ctx, accounts, 2, id, storage.Row{"name": "X"}); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Update in another organization: %v, want ErrNotFound", err)
		}

		time.Sleep(1100 * time.Millisecond) // updated_at must move on by a second
		if err := s.Update(ctx, accounts, 1, id, storage.Row{"external_id": "A-1"}); err != nil {
			t.Fatalf("Update: %v", err)
		}
		row, err = s.Get(ctx, accounts, 1, id)
		if err != nil {
			t.Fatal(err)
		}
		if row["external_id"] != "A-1" || row["name"] != "Acme" || !row["created_at"].(time.Time).Equal(created) {
			t.Errorf("after Update: %v", row)
		}
		if updated := storagetest.CheckStamp(t, row["updated_at"], begin); !updated.After(created) {
			t.Errorf("updated_at %v not after created_at %v", updated, created)
		}
		if err := s.Update(ctx, accounts, 1, id, storage.Row{"external_id": nil}); err != nil {
			t.Fatalf("Update to NULL: %v", err)
		}
		if row, _ := s.Get(ctx, accounts, 1, id); row["external_id"] != nil {
			t.Errorf("external_id = %#v, want nil", row["external_id"])
		}

		if err := s.Delete(ctx, accounts, 1, id); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := s.Delete(ctx, accounts, 1, id); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("second Delete: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, accounts, 1, id); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get after Delete: %v, want ErrNotFound", err)
		}
	})
}

func TestWeightUnitRoundTrip(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		units := storagetest.Table(t, s, "weightunits")
		if units.Key != "code" || units.AutoKey || !units.Scoped || units.Columns["conversion_rates"] != storage.KindJSON {
			t.Fatalf("weightunits table = %+v", units)
		}
		other := newOrganization(t, s, "Other")
		rates := `{"g": 1000, "lbs": 2.20462}`
		for _, org := range []int64{1, other} {
			key, err := s.Insert(ctx, units, org, storage.Row{"code": "kg", "conversion_rates": json.RawMessage(rates)})
			if err != nil {
				t.Fatalf("Insert kg in organization %d: %v", org, err)
			}
			if key != "kg" {
				t.Errorf("key = %#v, want \"kg\"", key)
			}
		}
		if _, err := s.Insert(ctx, units, 1, storage.Row{"code": "lbs"}); err != nil {
			t.Fatalf("Insert lbs: %v", err)
		}
		var ue *storage.UniqueError
		if _, err := s.Insert(ctx, units, 1, storage.Row{"code": "kg"}); !errors.As(err, &ue) {
			t.Fatalf("duplicate code: %v, want UniqueError", err)
		} else if !reflect.DeepEqual(ue.Columns, []string{"code"}) || ue.Table != "weightunits" {
			t.Errorf("UniqueError = %+v", ue)
		}

		row, err := s.Get(ctx, units, other, "kg")
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, row["conversion_rates"], rates) {
			t.Errorf("conversion_rates = %s, want %s", row["conversion_rates"], rates)
		}
		if row, _ := s.Get(ctx, units, 1, "lbs"); row["conversion_rates"] != nil {
			t.Errorf("unset conversion_rates = %#v, want nil", row["conversion_rates"])
		}
		if err := s.Update(ctx, units, other, "kg", storage.Row{"conversion_rates": json.RawMessage(`{"g":1}`)}); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, units, 1, "kg"); !sameJSON(t, row["conversion_rates"], rates) {
			t.Errorf("organization 1's kg changed with the other's: %s", row["conversion_rates"])
		}
		if err := s.Delete(ctx, units, other, "kg"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, units, 1, "kg"); err != nil {
			t.Errorf("organization 1's kg is gone with the other's: %v", err)
		}
	})
}

func TestTaxJurisdictionRoundTrip(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		tj := storagetest.Table(t, s, "taxjurisdictions")
		zips := `[{"zipCode": "10001"}, {"zipRangeStart": "10100", "zipRangeEnd": "10199"}]`
		key, err := s.Insert(ctx, tj, 1, storage.Row{
			"code": "NY-CITY", "country_code": "US", "region_code": "US-NY",
			"zip_codes": json.RawMessage(zips), "description": "New York City",
		})
		if err != nil {
			t.Fatalf("Insert: %v", err)
		}
		row, err := s.Get(ctx, tj, 1, key)
		if err != nil {
			t.Fatal(err)
		}
		if row["country_code"] != "US" || row["region_code"] != "US-NY" || row["region_text"] != nil ||
			row["description"] != "New York City" || !sameJSON(t, row["zip_codes"], zips) {
			t.Errorf("Get = %v", row)
		}

		var fk *storage.ForeignKeyError
		for _, bad := range []storage.Row{
			{"code": "BAD-1", "country_code": "XX"},
			{"code": "BAD-2", "country_code": "US", "region_code": "US-XX"},
		} {
			if _, err := s.Insert(ctx, tj, 1, bad); !errors.As(err, &fk) {
				t.Errorf("Insert %v: %v, want ForeignKeyError", bad, err)
			} else if fk.Table != "taxjurisdictions" {
				t.Errorf("ForeignKeyError.Table = %q", fk.Table)
			}
		}
		if err := s.Update(ctx, tj, 1, key, storage.Row{"country_code": "ZZ"}); !errors.As(err, &fk) {
			t.Errorf("Update to unknown country: %v, want ForeignKeyError", err)
		}
		if err := s.Update(ctx, tj, 1, key, storage.Row{"region_code": nil, "zip_codes": nil}); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, tj, 1, key); row["region_code"] != nil || row["zip_codes"] != nil {
			t.Errorf("after clearing: %v", row)
		}
	})
}

func TestUniqueExternalID(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		other := newOrganization(t, s, "Other")
		if _, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "A", "external_id": "E-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Insert(ctx, accounts, other, storage.Row{"name": "A", "external_id": "E-1"}); err != nil {
			t.Errorf("same external_id in another organization: %v", err)
		}
		for _, ext := range []any{nil, nil} {
			if _, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "no id", "external_id": ext}); err != nil {
				t.Errorf("NULL external_id twice: %v", err)
			}
		}
		_, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "B", "external_id": "E-1"})
		var ue *storage.UniqueError
		if !errors.As(err, &ue) {
			t.Fatalf("duplicate external_id: %v, want UniqueError", err)
		}
		if ue.Table != "accounts" || !reflect.DeepEqual(ue.Columns, []string{"external_id"}) {
			t.Errorf("UniqueError = %+v", ue)
		}
		// A unique clash inside a transaction, caught by a savepoint, leaves
		// the transaction usable (PostgreSQL would abort it otherwise).
		err = s.Tx(ctx, func(c *storage.Conn) error {
			err := c.Tx(ctx, func(c *storage.Conn) error {
				_, err := c.Insert(ctx, accounts, 1, storage.Row{"name": "C", "external_id": "E-1"})
				return err
			})
			if !errors.As(err, &ue) {
				t.Errorf("in savepoint: %v, want UniqueError", err)
			}
			_, err = c.Insert(ctx, accounts, 1, storage.Row{"name": "D", "external_id": "E-2"})
			return err
		})
		if err != nil {
			t.Fatalf("transaction after a caught clash: %v", err)
		}
	})
}
