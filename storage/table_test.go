package storage_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestMain(m *testing.M) { storagetest.Main(m) }

func TestTablesFromModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		autoKey bool
		scoped  bool
		order   []string
		kinds   map[string]storage.Kind
	}{
		{"organizations", "id", true, false,
			[]string{"id", "name", "description", "enabled", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"id": storage.KindInt, "enabled": storage.KindBool, "created_at": storage.KindTime}},
		{"countries", "code", false, false,
			[]string{"code", "iso3", "name_en", "name_de", "name_fr", "name_es"},
			map[string]storage.Kind{"code": storage.KindString}},
		{"regions", "code", false, false,
			[]string{"code", "country_code", "sub_code", "name_en", "name_de", "name_fr", "name_es"}, nil},
		{"weightunits", "code", false, true,
			[]string{"code", "conversion_rates", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"conversion_rates": storage.KindJSON}},
		{"taxjurisdictions", "id", true, true,
			[]string{"id", "code", "description", "region_text", "zip_codes", "country_code", "region_code", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"zip_codes": storage.KindJSON, "region_code": storage.KindString}},
		{"accounts", "id", true, true,
			[]string{"id", "name", "external_id", "owner_id", "default_contact_id", "referred_by_id", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"external_id": storage.KindString, "updated_at": storage.KindTime, "referred_by_id": storage.KindInt}},
		{"userroles", "code", false, false, []string{"code", "label"}, nil},
		{"businessunits", "id", true, true,
			[]string{"id", "name", "phone", "website", "email", "fax", "owner_id", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"owner_id": storage.KindInt}},
		{"users", "id", true, true,
			[]string{"id", "username", "email", "first_name", "last_name", "name_prefix", "middle_name", "name_suffix",
				"phone", "title", "google_id", "birthday", "enabled", "demo", "emails", "external_id", "last_login", "login_count",
				"password_hash", "owner_id", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"birthday": storage.KindDate, "enabled": storage.KindBool, "demo": storage.KindBool,
				"emails": storage.KindJSON, "last_login": storage.KindTime, "login_count": storage.KindInt}},
		{"contacts", "id", true, true,
			[]string{"id", "name_prefix", "first_name", "middle_name", "last_name", "name_suffix", "gender", "birthday",
				"description", "job_title", "emails", "phones", "primary_email", "primary_phone", "external_id",
				"owner_id", "assigned_to_id", "reports_to_id", "version", "created_at", "updated_at"},
			map[string]storage.Kind{"birthday": storage.KindDate, "phones": storage.KindJSON, "reports_to_id": storage.KindInt}},
	}
	s := storagetest.Shared(t, "sqlite")
	for _, tc := range tests {
		tbl := storagetest.Table(t, s, tc.name)
		versioned := slices.Contains(tc.order, storage.VersionColumn)
		if tbl.Key != tc.key || tbl.AutoKey != tc.autoKey || tbl.Scoped != tc.scoped || tbl.Versioned != versioned || !reflect.DeepEqual(tbl.Order, tc.order) {
			t.Errorf("%s = %+v", tc.name, tbl)
		}
		if len(tbl.Columns) != len(tbl.Order) {
			t.Errorf("%s: %d columns, %d in Order", tc.name, len(tbl.Columns), len(tbl.Order))
		}
		for col, k := range tc.kinds {
			if tbl.Columns[col] != k {
				t.Errorf("%s.%s is kind %d, want %d", tc.name, col, tbl.Columns[col], k)
			}
		}
	}
	// The records of storage/jobs and storage/authstore are theirs alone:
	// the generic queries must never reach them.
	for _, name := range []string{"nope", "async_operations", "clients", "signing_keys"} {
		if _, ok := s.Table(name); ok {
			t.Errorf("Table(%q) found", name)
		}
	}
	for _, want := range []storage.JoinTable{
		{Name: "account_contacts", Left: "account_id", Right: "contact_id", LeftKind: storage.KindInt, RightKind: storage.KindInt},
		{Name: "user_userroles", Left: "user_id", Right: "role_code", LeftKind: storage.KindInt, RightKind: storage.KindString},
	} {
		j, ok := s.JoinTable(want.Name)
		if !ok || *j != want {
			t.Errorf("JoinTable(%s) = %+v, %v; want %+v", want.Name, j, ok, want)
		}
		if _, ok := s.Table(want.Name); ok {
			t.Errorf("Table(%s) found: join tables are no Table", want.Name)
		}
	}
	if _, ok := s.JoinTable("accounts"); ok {
		t.Error(`JoinTable("accounts") found`)
	}
}

// TestSharedStore checks that Shared hands out one migrated store per dialect.
func TestSharedStore(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects() {
		a, b := storagetest.Shared(t, d), storagetest.Shared(t, d)
		if a != b {
			t.Errorf("%s: Shared returned two stores", d)
		}
		if a.Dialect() != d {
			t.Errorf("Shared(%s).Dialect() = %s", d, a.Dialect())
		}
		if n, err := a.Pending(context.Background()); err != nil || n != 0 {
			t.Errorf("%s: Pending = %d, %v", d, n, err)
		}
	}
}

// TestSQLiteTimeText checks the one text form of times in SQLite, whoever
// writes them: the generic queries, a Bun model and SQLite's own default.
func TestSQLiteTimeText(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	ctx := context.Background()
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("X", -5*3600))
	if _, err := s.Insert(ctx, storagetest.Table(t, s, "accounts"), 1, storage.Row{"name": "generic", "created_at": at}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().NewInsert().Model(&storage.Account{OrganizationID: 1, Name: "model", CreatedAt: at}).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var texts []string
	if err := s.DB().NewRaw("SELECT CAST(created_at AS TEXT) FROM accounts ORDER BY id").Scan(ctx, &texts); err != nil {
		t.Fatal(err)
	}
	if want := []string{"2024-05-06 12:08:09", "2024-05-06 12:08:09"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("stored %q, want %q", texts, want)
	}
	var main string
	if err := s.DB().NewRaw("SELECT CAST(created_at AS TEXT) FROM organizations WHERE id = 1").Scan(ctx, &main); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse("2006-01-02 15:04:05", main); err != nil {
		t.Errorf("default created_at %q is not in the common form: %v", main, err)
	}
}
