package server_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// BenchmarkGetOneRateLimited is BenchmarkGetOne with --rate-limit on, at a
// rate no request reaches, and its shares with the database every second
// beside the requests (docs/decisions.md §14): the limit's cost is the
// difference, whose goal is 5% of GET one's rate at most.
func BenchmarkGetOneRateLimited(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		store := storagetest.Open(b, dialect)
		srv, err := server.New(server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
			Logger:    slog.New(server.NewJSONLogHandler(io.Discard, nil)),
			RateLimit: server.RateLimitConfig{PerSecond: 1e9}}, store)
		if err != nil {
			b.Fatalf("server.New: %v", err)
		}
		b.Cleanup(srv.Close)
		createPrincipals(b, store)
		benchGet(b, withToken(srv, tokenFor(b, srv, "admin")), benchOne, jsonAPIType)
	})
}
