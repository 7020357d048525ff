package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestPoolerConfig: behind a transaction pooler the pool prepares no named
// statement and describes each statement in the round trip that runs it;
// a URL asking for a mode that breaks there is refused with the reason.
func TestPoolerConfig(t *testing.T) {
	t.Parallel()
	const base = "postgres://u@127.0.0.1:6432/db?sslmode=disable"
	tests := []struct {
		url     string
		refused string // a part of the error; "" when accepted
	}{
		{base, ""},
		{base + "&default_query_exec_mode=cache_describe", ""},
		{base + "&default_query_exec_mode=cache_statement", "cache_statement does not work"},
		{base + "&default_query_exec_mode=describe_exec", "describe_exec does not work"},
		{base + "&default_query_exec_mode=exec", "exec does not work"},
		{base + "&default_query_exec_mode=simple_protocol", "simple_protocol does not work"},
		{"host=127.0.0.1 port=6432 default_query_exec_mode=simple_protocol user=u", "simple_protocol does not work"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			err = poolerConfig(cfg, tt.url)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("poolerConfig = %v, want an error saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeCacheDescribe || cfg.ConnConfig.StatementCacheCapacity != 0 {
				t.Errorf("mode %v, statement cache %d; want cache_describe and none",
					cfg.ConnConfig.DefaultQueryExecMode, cfg.ConnConfig.StatementCacheCapacity)
			}
		})
	}
}
