package server_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// BenchmarkIncludeAsAccountsGrow times the soak's include page
// (benchContactsInclude: 50 contacts with their accounts and owners) while
// the accounts grow from seedCRM's 50 to 200,000 beside its 200 contacts,
// on one store and one server per database, so that the statements the
// pool keeps prepared from the first step are those the later steps run
// (issue 30, item 7; docs/scaling.md, "Data that grows"). Each step grows the
// table in one statement and runs the housekeeping's Optimize, as the
// server does within a minute. Besides the request's time it reports
// accounts-µs/op, the time of the statements that read the accounts (the
// included ones), which grew with the table before the fix:
//
//	go test ./server -run '^$' -bench IncludeAsAccountsGrow -benchtime 100x
func BenchmarkIncludeAsAccountsGrow(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		ctx := context.Background()
		store := storagetest.Open(b, dialect)
		seedCRM(b, store, benchUsers, benchAccounts, benchContacts)
		timer := &accountsTimer{}
		store.AddStatementHook(timer)
		h := benchServerOn(b, store)
		grown := 0
		for _, n := range []int{0, 10_000, 50_000, 100_000, 200_000} {
			if n > grown {
				growAccounts(b, store, n-grown)
				if dialect == "postgres" {
					awaitChanges(ctx, b, store, "accounts", n-grown)
				}
				if err := store.Optimize(ctx); err != nil {
					b.Fatal(err)
				}
				grown = n
			}
			b.Run("accounts="+strconv.Itoa(n), func(b *testing.B) {
				serve(b, h, benchContactsInclude, jsonAPIType)
				timer.reset()
				b.ResetTimer()
				for b.Loop() {
					serve(b, h, benchContactsInclude, jsonAPIType)
				}
				b.ReportMetric(float64(timer.total().Microseconds())/float64(b.N), "accounts-µs/op")
			})
		}
	})
}

// accountsTimer adds up the time of the statements that read the accounts.
type accountsTimer struct {
	mu  sync.Mutex
	sum time.Duration
}

type accountsStart struct{}

var _ storage.StatementHook = (*accountsTimer)(nil)

func (a *accountsTimer) BeforeStatement(ctx context.Context, query string) context.Context {
	if !strings.Contains(query, `FROM "accounts"`) {
		return ctx
	}
	return context.WithValue(ctx, accountsStart{}, time.Now())
}

func (a *accountsTimer) AfterStatement(ctx context.Context, _ string, _ error) {
	if start, ok := ctx.Value(accountsStart{}).(time.Time); ok {
		a.mu.Lock()
		a.sum += time.Since(start)
		a.mu.Unlock()
	}
}

func (a *accountsTimer) reset() {
	a.mu.Lock()
	a.sum = 0
	a.mu.Unlock()
}

func (a *accountsTimer) total() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sum
}
