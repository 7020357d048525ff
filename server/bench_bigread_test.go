package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The large-read data set of issue 15 item 9: 20,000 accounts and 5,000
// contacts, each contact in 4 accounts (20,000 links). The requests below took
// minutes on SQLite before their query shapes were fixed; `make bench` prints
// their figures (docs/speed.md).
const (
	bigAccounts           = 20000
	bigContacts           = 5000
	bigAccountsPerContact = 4
)

// bigReads are the requests BenchmarkBigRead times, by name.
func bigReads(contactIDs []string) []struct{ name, path string } {
	return []struct{ name, path string }{
		{"FilterContacts500", "/admin/api/accounts?filter[contacts]=" + strings.Join(contactIDs[:500], ",")},
		{"FilterContacts5000", "/admin/api/accounts?filter[contacts]=" + strings.Join(contactIDs, ",")},
		{"ContactsAllIncludeAccounts", "/admin/api/contacts?page[size]=-1&include=accounts"},
		{"ContactsAllIncludeAccountsContactsAccounts", "/admin/api/contacts?page[size]=-1&include=accounts.contacts.accounts"},
		{"Contacts1000IncludeAccounts", "/admin/api/contacts?page[size]=1000&include=accounts"},
	}
}

// seedBigCRM fills s with the large-read data set through storage's bulk
// paths (multi-row INSERTs), and returns the contacts' identifiers. Contact i
// is in accounts i, i+5000, i+10000 and i+15000, so every account has one
// contact and every contact four accounts.
func seedBigCRM(tb testing.TB, s *storage.Store) []string {
	tb.Helper()
	rows := make([]storage.Row, bigAccounts)
	for i := range rows {
		rows[i] = storage.Row{"name": "Big account " + strconv.Itoa(i+1)}
	}
	acc := seedRows(tb, s, "accounts", rows...)
	rows = make([]storage.Row, bigContacts)
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = storage.Row{"first_name": "Big", "last_name": "Contact " + n, "primary_email": "big" + n + "@example.com"}
	}
	con := seedRows(tb, s, "contacts", rows...)
	links := make([][2]string, 0, bigContacts*bigAccountsPerContact)
	for i, id := range con {
		for k := range bigAccountsPerContact {
			links = append(links, [2]string{acc[i+k*bigContacts], id})
		}
	}
	seedLinks(tb, s, "account_contacts", links...)
	return con
}

// BenchmarkBigRead times issue 15 item 9's requests on one seeded store per
// database: the sub-benchmarks BigRead/<database>/<request>. It seeds
// 45,000 rows per database, so `go test` without -bench never runs it.
func BenchmarkBigRead(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		store := storagetest.Open(b, dialect)
		start := time.Now()
		contacts := seedBigCRM(b, store)
		// What the housekeeping does within a minute of the server's start.
		if err := store.Optimize(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: seeded in %v", dialect, time.Since(start).Round(time.Millisecond))
		h := benchServerOn(b, store)
		for _, r := range bigReads(contacts) {
			b.Run(r.name, func(b *testing.B) {
				benchGet(b, h, r.path, jsonAPIType)
			})
		}
	})
}
