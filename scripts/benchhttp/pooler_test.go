package main

import (
	"slices"
	"strings"
	"testing"
)

// TestPooledURL: the pooled service gets the pooler's host, port, user and
// parameters with its own database's name; anything but a postgres:// URL
// is refused.
func TestPooledURL(t *testing.T) {
	for _, tc := range []struct {
		pooler, want string
	}{
		{"postgres://postgres@127.0.0.1:6432/postgres?sslmode=disable", "postgres://postgres@127.0.0.1:6432/entityapi_benchhttp_ab?sslmode=disable"},
		{"postgresql://u:p@pool:7000", "postgresql://u:p@pool:7000/entityapi_benchhttp_ab"},
		{"postgres://u@pool:7000/other%2Fname", "postgres://u@pool:7000/entityapi_benchhttp_ab"},
		{"mysql://u@pool:7000/x", ""},
		{"127.0.0.1:6432", ""},
		{"postgres:///x", ""},
	} {
		got, err := pooledURL(tc.pooler, "entityapi_benchhttp_ab")
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "-pooler") {
				t.Errorf("pooledURL(%q) = %q, %v; want an error naming -pooler", tc.pooler, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("pooledURL(%q) = %q, %v; want %q", tc.pooler, got, err, tc.want)
		}
	}
}

// TestPooledBuild: the service through the pooler is the working tree's
// binary with --database-pooler transaction, only on PostgreSQL, with a
// pooler, and when GET one or POST is measured; the direct build is left as
// it was.
func TestPooledBuild(t *testing.T) {
	builds := []build{{name: sysService, bin: "/tmp/entityapi", env: []string{"A=1"}, args: []string{"--x"}},
		{name: sysBaseline, bin: "/tmp/entityapi-baseline"}}
	withPooler := config{postgres: "postgres://admin/db", pooler: "postgres://u@pool:1/db"}
	for _, tc := range []struct {
		name     string
		cfg      config
		database string
		targets  []string
		want     bool
	}{
		{"postgres with a pooler", withPooler, "postgres", []string{"one", "list"}, true},
		{"only post", withPooler, "postgres", []string{"post"}, true},
		{"no pooled target", withPooler, "postgres", []string{"list", "patch", "batch"}, false},
		{"sqlite", withPooler, "sqlite", []string{"one"}, false},
		{"no pooler", config{postgres: "postgres://admin/db"}, "postgres", []string{"one"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pooledBuild(tc.cfg, tc.database, builds, tc.targets)
			if (b != nil) != tc.want {
				t.Fatalf("pooledBuild = %+v, want one: %v", b, tc.want)
			}
			if b == nil {
				return
			}
			if b.name != sysPooled || !b.pooled || b.bin != builds[0].bin || !slices.Equal(b.env, builds[0].env) ||
				!slices.Equal(b.args, []string{"--x", "--database-pooler", "transaction"}) {
				t.Errorf("pooled build %+v", *b)
			}
			if len(builds[0].args) != 1 || builds[0].pooled || builds[0].name != sysService {
				t.Errorf("the direct build changed: %+v", builds[0])
			}
		})
	}
	if got := pooledTargets([]string{"list", "post", "one", "batch"}); len(got) != 2 || !got["one"] || !got["post"] {
		t.Errorf("pooledTargets = %v, want one and post", got)
	}
}

// TestCheckPooler: a pooler needs the server behind it and a postgres:// URL.
func TestCheckPooler(t *testing.T) {
	base := config{rounds: 3, duration: 1e9, connections: 32, threads: 2, sqlite: true}
	for _, tc := range []struct {
		postgres, pooler, wantErr string
	}{
		{"postgres://admin/db", "postgres://u@pool:1/db", ""},
		{"", "", ""},
		{"", "postgres://u@pool:1/db", "needs -postgres-admin"},
		{"postgres://admin/db", "pool:1", "must be a postgres:// URL"},
	} {
		c := base
		c.postgres, c.pooler = tc.postgres, tc.pooler
		err := c.check()
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("postgres %q pooler %q: %v, want %q", tc.postgres, tc.pooler, err, tc.wantErr)
		}
	}
}
