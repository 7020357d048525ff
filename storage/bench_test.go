package storage_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The benchmarks measure storage's read path alone, on the queries behind
// the server's read benchmarks (server/bench_test.go): a country by key and
// its regions, a page of 10 countries and their regions, a filtered and
// sorted page of 20 contacts, a page of 50 contacts and their accounts
// through the join table. Each runs as the sub-benchmarks "sqlite" and (with
// TEST_DATABASE_URL) "postgres". Run them with:
//
//	go test ./storage -run '^$' -bench . -benchmem

// benchCRM is a store with the records of the server's seedCRM: 10 users,
// 50 accounts and 200 contacts in organization 1, each contact in one to
// three accounts.
type benchCRM struct {
	store    *storage.Store
	contacts []any // keys, in key order
}

func openBenchCRM(b *testing.B, dialect string) benchCRM {
	b.Helper()
	ctx := context.Background()
	s := storagetest.Open(b, dialect)
	insertMany := func(name string, rows []storage.Row) []any {
		keys, err := s.InsertMany(ctx, storagetest.Table(b, s, name), 1, rows)
		if err != nil {
			b.Fatalf("insert %s: %v", name, err)
		}
		return keys
	}
	rows := make([]storage.Row, 10)
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = storage.Row{"username": "crm" + n, "email": "crm" + n + "@example.com", "first_name": "Crm", "last_name": "User" + n}
	}
	users := insertMany("users", rows)
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	rows = make([]storage.Row, 50)
	for i := range rows {
		rows[i] = storage.Row{"name": "Account " + strconv.Itoa(i+1), "owner_id": users[i%len(users)], "created_at": base.AddDate(0, 0, i%50)}
	}
	accounts := insertMany("accounts", rows)
	lastNames := []string{"Lee", "Miller", "Lopez", "Smith", "Lewis", "Nguyen", "Larsen", "Kim", "Lambert", "Brown"}
	rows = make([]storage.Row, 200)
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = storage.Row{"first_name": "First" + n, "last_name": lastNames[i%len(lastNames)] + " " + n,
			"primary_email": "contact" + n + "@example.com", "job_title": "Buyer", "owner_id": users[i%len(users)],
			"created_at": base.AddDate(0, 0, i%50)}
	}
	contacts := insertMany("contacts", rows)
	var links [][2]any
	for i, c := range contacts {
		for k := 0; k <= i%3; k++ {
			links = append(links, [2]any{accounts[(i+k*7)%len(accounts)], c})
		}
	}
	j, ok := s.JoinTable("account_contacts")
	if !ok {
		b.Fatal("no join table account_contacts")
	}
	if err := s.Link(ctx, j, links); err != nil {
		b.Fatalf("link: %v", err)
	}
	return benchCRM{store: s, contacts: contacts}
}

// benchReads runs read once to check it, then measures it.
func benchReads(b *testing.B, read func() (int, error), want int) {
	b.Helper()
	if n, err := read(); err != nil || n != want {
		b.Fatalf("read: %d rows, %v; want %d", n, err, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := read(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetCountry is GET one country: the row by key, then its regions.
func BenchmarkGetCountry(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		s := storagetest.Open(b, dialect)
		countries, regions := storagetest.Table(b, s, "countries"), storagetest.Table(b, s, "regions")
		ctx := context.Background()
		benchReads(b, func() (int, error) {
			r, err := s.Get(ctx, countries, 0, "US")
			if err != nil {
				return 0, err
			}
			links, err := s.Linkage(ctx, regions, 0, "country_code", []any{r["code"]})
			return len(links), err
		}, 57)
	})
}

// BenchmarkCountryPage is GET a list of 10 countries: the page, then their
// regions in one query.
func BenchmarkCountryPage(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		s := storagetest.Open(b, dialect)
		countries, regions := storagetest.Table(b, s, "countries"), storagetest.Table(b, s, "regions")
		ctx := context.Background()
		benchReads(b, func() (int, error) {
			rows, err := s.Find(ctx, storage.Query{Table: countries, Limit: 10})
			if err != nil {
				return 0, err
			}
			codes := make([]any, len(rows))
			for i, r := range rows {
				codes[i] = r["code"]
			}
			_, err = s.Linkage(ctx, regions, 0, "country_code", codes)
			return len(rows), err
		}, 10)
	})
}

// BenchmarkRegionsOf50 is the regions linkage of 50 countries.
func BenchmarkRegionsOf50(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		s := storagetest.Open(b, dialect)
		countries, regions := storagetest.Table(b, s, "countries"), storagetest.Table(b, s, "regions")
		ctx := context.Background()
		rows, err := s.Find(ctx, storage.Query{Table: countries, Limit: 50, Offset: 50})
		if err != nil {
			b.Fatal(err)
		}
		codes := make([]any, len(rows))
		for i, r := range rows {
			codes[i] = r["code"]
		}
		want, err := s.Linkage(ctx, regions, 0, "country_code", codes)
		if err != nil {
			b.Fatal(err)
		}
		benchReads(b, func() (int, error) {
			links, err := s.Linkage(ctx, regions, 0, "country_code", codes)
			return len(links), err
		}, len(want))
	})
}

// BenchmarkFilteredContacts is the filtered and sorted page of 20 contacts.
func BenchmarkFilteredContacts(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		crm := openBenchCRM(b, dialect)
		s := crm.store
		contacts := storagetest.Table(b, s, "contacts")
		ctx := context.Background()
		q := storage.Query{Table: contacts, Org: 1, Limit: 20,
			Where:   []storage.Cond{{Column: "last_name", Op: storage.StartsWith, Values: []any{"L"}}},
			OrderBy: []storage.Order{{Column: "created_at", Desc: true}, {Column: "last_name"}}}
		benchReads(b, func() (int, error) {
			rows, err := s.Find(ctx, q)
			return len(rows), err
		}, 20)
	})
}

// BenchmarkContactsPage is a page of 50 contacts (every column).
func BenchmarkContactsPage(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		crm := openBenchCRM(b, dialect)
		s := crm.store
		contacts := storagetest.Table(b, s, "contacts")
		ctx := context.Background()
		benchReads(b, func() (int, error) {
			rows, err := s.Find(ctx, storage.Query{Table: contacts, Org: 1, Limit: 50})
			return len(rows), err
		}, 50)
	})
}

// BenchmarkContactAccounts is the accounts of 50 contacts through the join
// table: the pairs, then the accounts by a condition via the join table.
func BenchmarkContactAccounts(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		crm := openBenchCRM(b, dialect)
		s := crm.store
		accounts := storagetest.Table(b, s, "accounts")
		j, _ := s.JoinTable("account_contacts")
		ctx := context.Background()
		page := crm.contacts[:50]
		benchReads(b, func() (int, error) {
			pairs, err := s.Pairs(ctx, j, "contact_id", page)
			if err != nil {
				return 0, err
			}
			_, err = s.Find(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{{
				Op: storage.Eq, Via: &storage.Via{Table: "account_contacts", Column: "account_id", Target: "contact_id"}, Values: page}}})
			return len(pairs), err
		}, 99)
	})
}

// eachBenchDialect runs fn as one sub-benchmark per test database.
func eachBenchDialect(b *testing.B, fn func(b *testing.B, dialect string)) {
	for _, dialect := range storagetest.Dialects() {
		b.Run(dialect, func(b *testing.B) { fn(b, dialect) })
	}
}
