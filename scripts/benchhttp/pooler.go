package main

import (
	"fmt"
	"net/url"
	"slices"
)

// The service through PgBouncer (issue 30): with -pooler, on PostgreSQL, the
// working tree's build runs a third time, on its own database reached
// through a pooler in transaction mode and started with
// `--database-pooler transaction`, as a PaaS that hands out a pooled URL
// runs it. It is measured on one read and one write only, in the same
// rotating rounds as the direct service, so that its ratio to the direct
// service is read in one run: what the pooler's extra hop and the
// transaction-mode way of querying (storage.PoolerTransaction) cost.

// sysPooled names the service through the pooler in the table.
const sysPooled = "service (PgBouncer)"

// pooledTargetNames are the targets measured through the pooler: one read
// and one write (a transaction with its change event) are enough to show
// what the hop costs; every target would lengthen the run by half again.
var pooledTargetNames = []string{"one", "post"}

// poolerArgs are what the pooled service adds to `entityapi serve`.
var poolerArgs = []string{"--database-pooler", "transaction"}

// pooledTargets is the part of names measured through the pooler.
func pooledTargets(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		if slices.Contains(pooledTargetNames, n) {
			out[n] = true
		}
	}
	return out
}

// pooledBuild is the working tree's build started through the pooler, nil
// when nothing is to be measured through it (no -pooler, SQLite, or none
// of the pooled targets asked for).
func pooledBuild(cfg config, database string, builds []build, names []string) *build {
	if cfg.pooler == "" || database != "postgres" || len(pooledTargets(names)) == 0 {
		return nil
	}
	b := builds[0]
	b.name, b.pooled = sysPooled, true
	b.args = append(slices.Clone(b.args), poolerArgs...)
	return &b
}

// pooledURL is the URL of database name through the pooler: the pooler's
// URL (its host, port, user and parameters) with name as its path. The
// database itself is created on the admin server; the pooler, configured
// with a wildcard database as scripts/pgbouncer/start.sh does, forwards any
// name to that server.
func pooledURL(pooler, name string) (string, error) {
	u, err := url.Parse(pooler)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return "", fmt.Errorf("-pooler (TEST_DATABASE_POOLER_URL) must be a postgres:// URL")
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), nil
}
