// Package postgres is storage's dialect for PostgreSQL through pgx: how
// the pool is opened and sized, how its errors read, its SQL forms, COPY,
// and River's pgx driver on the same pool. It knows nothing of storage,
// which reaches it through storage/dialect.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/entityapi/entityapi/storage/dialect"
)

// minPoolConns is the pool size unless the URL sets one.
const minPoolConns = 20

// DB is an opened PostgreSQL database: one pgx pool, used by Bun through
// database/sql, by the store's reads through pgx itself, and by River.
type DB struct {
	db   *bun.DB
	pool *pgxpool.Pool
	// features are PostgreSQL's, with what a pooler changes (pooled).
	features dialect.Features
	// pooled: a transaction pooler stands between the processes and the
	// server (Options.TransactionPooler).
	pooled bool
}

// Options are how Open connects, beyond the URL.
type Options struct {
	// TransactionPooler: the URL reaches PostgreSQL through a pooler in
	// transaction mode (PgBouncer's pool_mode = transaction, 1.18 and
	// later), which hands each transaction, and each statement outside
	// one, to any of its server connections. Nothing may then outlive a
	// transaction on a connection (docs/scaling.md, "Behind a pooler"):
	//   - no named prepared statement: pgx's cache_describe mode parses
	//     each statement unnamed, in the round trip that runs it, and
	//     encodes its parameters with the types the server described for
	//     it once per connection (arrays included);
	//   - River polls for jobs instead of LISTENing (its poll-only mode);
	//   - the locks and settings the store takes are already
	//     transaction-scoped (pg_advisory_xact_lock; no SET, no LISTEN, no
	//     temporary table), and bun/migrate's lock is a row.
	TransactionPooler bool
	// SearchConfiguration is the text-search configuration of the
	// full-text indexes and searches (CheckSearchConfiguration); "" is
	// DefaultSearchConfiguration.
	SearchConfiguration string
}

// pooledExecModes are the query modes that work through a transaction
// pooler, by their names in a URL's default_query_exec_mode.
var pooledExecModes = map[string]pgx.QueryExecMode{
	"cache_describe": pgx.QueryExecModeCacheDescribe,
}

var _ dialect.Dialect = (*DB)(nil)

// CheckURL tells, without connecting, whether pgx can parse url; the
// error is pgx's cause alone, when there is one (pgx's own message repeats
// the URL).
func CheckURL(url string) error {
	if _, err := pgxpool.ParseConfig(url); err != nil {
		if cause := errors.Unwrap(err); cause != nil {
			err = cause
		}
		return err
	}
	return nil
}

// Open opens a pgx pool and lets Bun use it through database/sql, so the
// same pool can be handed to other pgx users (River). redacted is url
// without its password, for messages.
func Open(ctx context.Context, url, redacted string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redacted, err)
	}
	d := &DB{features: features, pooled: opts.TransactionPooler}
	searchCfg := opts.SearchConfiguration
	if searchCfg == "" {
		searchCfg = DefaultSearchConfiguration
	}
	if err := CheckSearchConfiguration(searchCfg); err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redacted, err)
	}
	searchFeatures(&d.features, searchCfg)
	if opts.TransactionPooler {
		if err := poolerConfig(cfg, url); err != nil {
			return nil, fmt.Errorf("storage: open %s: %w", redacted, err)
		}
		// An unnamed statement is planned for the values it runs with:
		// every statement already gets the plan CustomPlan asks for.
		d.features.CustomPlan = pgx.QueryExecModeCacheDescribe
	}
	// pgx's default (the larger of 4 and the CPUs) is too small once batch
	// workers, the job queue's own queries and API requests share the pool; a
	// pool_max_conns in the URL still decides.
	if !strings.Contains(url, "pool_max_conns") && cfg.MaxConns < minPoolConns {
		cfg.MaxConns = minPoolConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redacted, err)
	}
	d.db, d.pool = bun.NewDB(stdlib.OpenDBFromPool(pool), pgdialect.New()), pool
	return d, nil
}

// poolerConfig makes cfg safe behind a transaction pooler (see
// Options.TransactionPooler): statements in pgx's cache_describe mode and
// no statement cache. A URL that asks for another mode is refused rather
// than obeyed: the named statements of cache_statement collide on the
// pooler's shared server connections ("prepared statement already
// exists"), describe_exec runs a statement in a second round trip that may
// reach another server connection, and exec and simple_protocol cannot
// encode the store's array parameters without the server's types.
func poolerConfig(cfg *pgxpool.Config, url string) error {
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cfg.ConnConfig.StatementCacheCapacity = 0
	if mode, ok := urlParam(url, "default_query_exec_mode"); ok {
		if _, safe := pooledExecModes[mode]; !safe {
			return fmt.Errorf("default_query_exec_mode=%s does not work through a transaction pooler: leave it out "+
				"(with --database-pooler transaction entityapi uses cache_describe)", mode)
		}
	}
	return nil
}

// urlParam is the value of a query parameter of a postgres:// URL, or of a
// key=value connection string.
func urlParam(url, name string) (string, bool) {
	for _, sep := range []string{"?", "&", " "} {
		if i := strings.Index(url, sep+name+"="); i >= 0 {
			v := url[i+len(sep)+len(name)+1:]
			if j := strings.IndexAny(v, "& "); j >= 0 {
				v = v[:j]
			}
			return v, true
		}
	}
	return "", false
}

// Name is "postgres".
func (d *DB) Name() string { return "postgres" }

// DB is the Bun handle on the pool.
func (d *DB) DB() *bun.DB { return d.db }

// Close closes database/sql's handle and the pool.
func (d *DB) Close() error {
	err := d.db.Close()
	d.pool.Close()
	return err
}

// PoolStats reports the pgx pool Bun and River share (database/sql over it
// only borrows its connections, so its own figures would say nothing).
func (d *DB) PoolStats() dialect.PoolStats {
	st := d.pool.Stat()
	return dialect.PoolStats{MaxOpen: int(st.MaxConns()), Open: int(st.TotalConns()), InUse: int(st.AcquiredConns()),
		Idle: int(st.IdleConns()), WaitCount: st.EmptyAcquireCount(), WaitDuration: st.EmptyAcquireWaitTime()}
}

// Renew does nothing: PostgreSQL's connections hold nothing of a table.
func (d *DB) Renew(context.Context) error { return nil }

// CopyFrom sends rows into table with COPY (pgx's CopyFrom) on conn, the
// connection of the caller's transaction: the rows travel in pgx's binary
// format with no statement to parse or plan (issue 16).
func (d *DB) CopyFrom(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) (int64, error) {
	var n int64
	err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("storage: COPY needs a pgx connection, not %T", dc)
		}
		var err error
		n, err = sc.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
	return n, err
}
