package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestMigrateLoadsReferenceData(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			table string
			min   int
		}{
			{"organizations", 1},
			{"countries", 249},
			{"regions", 3000},
			{"accounts", 0},
			{"weightunits", 0},
			{"taxjurisdictions", 0},
			{"localizations", 4},
			{"currencies", 150},
		} {
			n, err := s.Count(ctx, storage.Query{Table: storagetest.Table(t, s, tc.table), Org: 1})
			if err != nil {
				t.Fatalf("Count(%s): %v", tc.table, err)
			}
			if n < tc.min {
				t.Errorf("Count(%s) = %d, want at least %d", tc.table, n, tc.min)
			}
		}
		de, err := s.Get(ctx, storagetest.Table(t, s, "countries"), 0, "DE")
		if err != nil {
			t.Fatalf("Get(countries, DE): %v", err)
		}
		if de["iso3"] != "DEU" || de["name_de"] != "Deutschland" {
			t.Errorf("DE = %v", de)
		}
		eur, err := s.Get(ctx, storagetest.Table(t, s, "currencies"), 0, "EUR")
		if err != nil || eur["name"] != "Euro" || eur["symbol"] != "€" {
			t.Errorf("EUR = %v, %v", eur, err)
		}
		loc, err := s.Get(ctx, storagetest.Table(t, s, "localizations"), 0, int64(2))
		if err != nil || loc["language_code"] != "de" || loc["formatting_code"] != "de_DE" {
			t.Errorf("localization 2 = %v, %v", loc, err)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		n, err := s.Pending(ctx)
		if err != nil || n != 0 {
			t.Fatalf("Pending() = %d, %v; want 0, nil", n, err)
		}
		regions, err := s.Count(ctx, storage.Query{Table: storagetest.Table(t, s, "regions")})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("third Migrate: %v", err)
		}
		again, err := s.Count(ctx, storage.Query{Table: storagetest.Table(t, s, "regions")})
		if err != nil || again != regions {
			t.Errorf("regions after another Migrate = %d, %v; want %d", again, err, regions)
		}
	})
}

func TestPendingOnFreshDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := storage.Open(ctx, "sqlite:"+t.TempDir()+"/fresh.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Pending(ctx)
	if err != nil || n < 1 {
		t.Fatalf("Pending() = %d, %v; want at least 1", n, err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Pending(ctx); err != nil || n != 0 {
		t.Fatalf("Pending() after Migrate = %d, %v; want 0", n, err)
	}
}

func TestDefaultOrganization(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		main, err := s.Organization(ctx, 1)
		if err != nil {
			t.Fatalf("Organization(1): %v", err)
		}
		if main.Name != "Main" || !main.Enabled || main.CreatedAt.IsZero() || main.CreatedAt.Location().String() != "UTC" {
			t.Errorf("organization 1 = %+v", main)
		}
		if main.CreatedAt.Nanosecond() != 0 {
			t.Errorf("created_at %v has a fraction of a second", main.CreatedAt)
		}
		row, err := s.Get(ctx, storagetest.Table(t, s, "organizations"), 0, int64(1))
		if err != nil || row["enabled"] != true || row["name"] != "Main" || row["description"] != nil {
			t.Errorf("Get(organizations, 1) = %v, %v", row, err)
		}
		// The sequence goes on after the migration's row.
		id := newOrganization(t, s, "Second")
		if id != 2 {
			t.Errorf("next organization id = %d, want 2", id)
		}
		if _, err := s.Organization(ctx, 99); err != storage.ErrNotFound {
			t.Errorf("Organization(99) error = %v, want ErrNotFound", err)
		}
	})
}

// newOrganization inserts an organization through its Bun model, as the
// organization admin code will, and returns its id.
func newOrganization(t *testing.T, s *storage.Store, name string) int64 {
	t.Helper()
	o := &storage.Organization{Name: name, Enabled: true}
	if _, err := s.DB().NewInsert().Model(o).Returning("id").Exec(context.Background()); err != nil {
		t.Fatalf("insert organization %s: %v", name, err)
	}
	return o.ID
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"mysql://u:secret@tcp(h:3306)/db", "", "sqlite:", "file:x.db"} {
		_, err := storage.Open(context.Background(), url)
		if err == nil {
			t.Errorf("Open(%q) succeeded", url)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error shows the password: %v", url, err)
		}
	}
}

// TestOpenChecksThePooler: a pooler is named from a short list, goes with
// PostgreSQL only, and is refused before anything connects.
func TestOpenChecksThePooler(t *testing.T) {
	t.Parallel()
	pg := "postgres://u:secret@127.0.0.1:1/db"
	tests := []struct {
		url, pooler string
		refused     string
	}{
		{pg, "", ""},
		{pg, storage.PoolerNone, ""},
		{pg, storage.PoolerTransaction, ""},
		{pg, "session", `pooler "session": want none or transaction`},
		{"sqlite:x.db", storage.PoolerTransaction, "needs a postgres:// database URL"},
	}
	for _, tt := range tests {
		err := storage.Options{Pooler: tt.pooler}.Check(tt.url)
		if (err == nil) != (tt.refused == "") || (err != nil && !strings.Contains(err.Error(), tt.refused)) {
			t.Errorf("Check(%q, pooler %q) = %v, want %q", tt.url, tt.pooler, err, tt.refused)
		}
		if tt.refused == "" {
			continue
		}
		_, err = storage.OpenWith(context.Background(), tt.url, storage.Options{Pooler: tt.pooler})
		if err == nil || !strings.Contains(err.Error(), tt.refused) || strings.Contains(err.Error(), "secret") {
			t.Errorf("OpenWith(%q, pooler %q) = %v, want %q without the password", tt.url, tt.pooler, err, tt.refused)
		}
	}
}

func TestDialect(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		if got := s.Dialect(); !strings.HasSuffix(t.Name(), "/"+got) {
			t.Errorf("Dialect() = %q in subtest %s", got, t.Name())
		}
		if err := s.Ping(context.Background()); err != nil {
			t.Error(err)
		}
	})
}

// TestConcurrentMigrate starts several stores (as several processes would) on
// one empty database: they take turns, and the data is loaded once. Through a
// transaction pooler (storagetest's TEST_DATABASE_POOLER_URL) the migrations
// and their lock go through it too.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects() {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url, opts := storagetest.Empty(t, d)
			const n = 3
			stores := make([]*storage.Store, n)
			for i := range stores {
				s, err := storage.OpenWith(ctx, url, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				stores[i] = s
			}
			errs := make(chan error, n)
			for _, s := range stores {
				go func() { errs <- s.Migrate(ctx) }()
			}
			for range n {
				if err := <-errs; err != nil {
					t.Errorf("Migrate: %v", err)
				}
			}
			countries, err := stores[0].Count(ctx, storage.Query{Table: storagetest.Table(t, stores[0], "countries")})
			if err != nil || countries < 249 || countries > 300 {
				t.Errorf("countries = %d, %v", countries, err)
			}
		})
	}
}

func TestMemoryDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := storage.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	accounts := storagetest.Table(t, s, "accounts")
	err = s.Tx(ctx, func(c *storage.Conn) error {
		_, err := c.InsertMany(ctx, accounts, 1, []storage.Row{{"name": "a"}, {"name": "b"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, storage.Query{Table: accounts, Org: 1}); err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
}

// TestMigrateWaitsForABusyFile: a process that migrates a SQLite file holds
// it whole in its migration's transaction; another process starting then
// waits for it (busy_timeout, then the lock's own wait), even past the
// busy timeout, instead of failing on SQLITE_BUSY. The CI saw this as a
// failure of TestConcurrentMigrate on a loaded machine. Here a transaction
// of another store holds the file for longer than busy_timeout (10 s).
func TestMigrateWaitsForABusyFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, opts := storagetest.Empty(t, "sqlite")
	first, err := storage.OpenWith(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := first.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := storage.OpenWith(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	tx, err := first.DB().BeginTx(ctx, nil) // BEGIN IMMEDIATE: the file's write lock
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(11 * time.Second)
		_ = tx.Rollback()
	}()
	if err := second.Migrate(ctx); err != nil {
		t.Errorf("Migrate while another store holds the file: %v", err)
	}
	<-released
}
