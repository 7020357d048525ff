package storage

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
	"github.com/entityapi/entityapi/storage/dialect/postgres"
	"github.com/entityapi/entityapi/storage/dialect/sqlite"
)

// Store is entityapi's database. Its embedded Conn runs the generic queries
// outside any transaction; Tx runs them in one.
type Store struct {
	*Conn

	db *bun.DB
	// d is the database's dialect (storage/dialect), and f its Features,
	// copied here so that the statements read them without a call.
	d dialect.Dialect
	f dialect.Features
	// native is the dialect's own driver, which the reads outside a
	// transaction use where there is one (rows.go); nil elsewhere.
	native dialect.Native

	// writeSlot serializes write transactions of this process where the
	// database has one writer (Features.OneWriter: SQLite, one writer per
	// file; nil elsewhere). Waiting here, honouring the context, beats
	// failing with SQLITE_BUSY after busy_timeout.
	writeSlot chan struct{}
	// queue holds the single writes waiting for the slot, which the writer
	// that takes it commits together (writegroup.go); where OneWriter only.
	queue writeQueue

	// bulk is a SQLite file's connection without note triggers for the
	// transactions of batch chunks (bulkconn.go); nil otherwise.
	bulk *bulkPool
	// armer arms the note triggers where the dialect has them
	// (Features.NoteTriggers, eventtrigger.go); nil elsewhere.
	armer dialect.Armer
	// actors hands the audit triggers who writes where the dialect reads
	// it from the process (dialect.Actors, audit.go); nil elsewhere.
	actors dialect.Actors
	// marks tells whether anything was committed since a moment without a
	// statement where the dialect can (dialect.CommitMarker, a SQLite
	// file); nil elsewhere.
	marks dialect.CommitMarker
	// checkpoints is told when a write ends (releaseWrite) where the
	// dialect checkpoints a log (dialect.Checkpointer); nil otherwise.
	checkpoints dialect.Checkpointer
	// lease is the process's hold of the reference fence on PostgreSQL
	// (referencelease.go); nil until KeepReferenceLease, and on SQLite.
	lease atomic.Pointer[referenceLease]

	tables map[string]*Table
	joins  map[string]*JoinTable

	watch statementWatch // every statement: counted, and seen by the hooks
	stmts preparedCache  // where Features.Prepare (see statement.go)

	opts Options // as opened
	// replica is the read replica ReadConn lends (replica.go); nil: none.
	replica *replica
}

// CheckURL tells, without connecting, whether url names a database Open can
// open: "sqlite:PATH" with a path, or a postgres:// URL pgx can parse. The
// error says what is wrong and never repeats a password.
func CheckURL(url string) error {
	// The URL's scheme names the database: here and in Open, the two places
	// that tell the databases apart (before there is a dialect to ask).
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		if strings.TrimPrefix(url, "sqlite:") == "" {
			return fmt.Errorf("%q: sqlite: needs a file path (sqlite:PATH) or :memory:", url)
		}
		return nil
	case isPostgresURL(url):
		if err := postgres.CheckURL(url); err != nil {
			return fmt.Errorf("%s: %w", redact(url), err)
		}
		return nil
	}
	return fmt.Errorf("%q: want sqlite:PATH or postgres://USER@HOST:PORT/DATABASE", redact(url))
}

// Options are how a store connects, beyond its URL.
type Options struct {
	// Pooler names what stands between the processes and a PostgreSQL
	// server: PoolerNone (or "") or PoolerTransaction, a pooler in
	// transaction mode such as PgBouncer's (docs/scaling.md).
	Pooler string
	// SearchConfiguration is PostgreSQL's text-search configuration of the
	// full-text indexes and searches; Migrate rebuilds the indexes built in
	// another (searchconfig.go). "" searches in simple, the default, and
	// leaves the indexes as Migrate finds them: the administration commands
	// open the database so, and must not undo the service's setting. SQLite's
	// FTS5 index has one way to read words, simple's, and takes no other.
	SearchConfiguration string
}

// DefaultSearchConfiguration is Options.SearchConfiguration's default.
const DefaultSearchConfiguration = postgres.DefaultSearchConfiguration

// The poolers of Options.Pooler.
const (
	PoolerNone        = "none"
	PoolerTransaction = "transaction"
)

// Check tells, without connecting, whether the options suit url.
func (o Options) Check(url string) error {
	switch o.Pooler {
	case "", PoolerNone:
		return nil
	case PoolerTransaction:
		if !isPostgresURL(url) {
			return fmt.Errorf("pooler %q needs a postgres:// database URL", o.Pooler)
		}
		return nil
	}
	return fmt.Errorf("pooler %q: want %s or %s", o.Pooler, PoolerNone, PoolerTransaction)
}

// CheckSearchConfiguration tells, without connecting, whether the
// options' text-search configuration suits url: a name on PostgreSQL,
// simple (or none) on SQLite.
func (o Options) CheckSearchConfiguration(url string) error {
	switch {
	case o.SearchConfiguration == "" || o.SearchConfiguration == DefaultSearchConfiguration:
		return nil
	case !isPostgresURL(url):
		return fmt.Errorf("search configuration %q needs a postgres:// database URL: SQLite's full-text index reads words one way, as %s does", o.SearchConfiguration, DefaultSearchConfiguration)
	}
	return postgres.CheckSearchConfiguration(o.SearchConfiguration)
}

// CheckReplicaURL tells, without connecting, whether replica can name a
// read replica of primary (AttachReplica): both PostgreSQL URLs.
func CheckReplicaURL(primary, replica string) error {
	if err := CheckURL(replica); err != nil {
		return err
	}
	if !isPostgresURL(primary) || !isPostgresURL(replica) {
		return fmt.Errorf("%s: %w (for the primary too)", redact(replica), errNoReplicas)
	}
	return nil
}

// isPostgresURL tells whether url names a PostgreSQL server.
func isPostgresURL(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// Open is OpenWith without options: a database reached directly.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith connects to the database named by url: "sqlite:PATH" (the parent
// directory is created), "sqlite::memory:" (a private in-memory database on a
// single connection: a read outside a running transaction waits for it), or
// "postgres://..." / "postgresql://...", as opts say. It checks that the
// database answers but does not migrate it (see Migrate).
func OpenWith(ctx context.Context, url string, opts Options) (*Store, error) {
	var (
		s   *Store
		err error
	)
	if err := opts.Check(url); err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redact(url), err)
	}
	if err := opts.CheckSearchConfiguration(url); err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redact(url), err)
	}
	// The place that chooses the dialect, by the URL's scheme (CheckURL
	// reads it the same way); past it the store asks s.d and s.f, never
	// which database it is.
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		s, err = openSQLite(strings.TrimPrefix(url, "sqlite:"))
	case isPostgresURL(url):
		s, err = openPostgres(ctx, url, postgres.Options{TransactionPooler: opts.Pooler == PoolerTransaction,
			SearchConfiguration: opts.SearchConfiguration})
	default:
		return nil, fmt.Errorf("storage: unsupported database URL %q (want sqlite:PATH or postgres://...)", redact(url))
	}
	if err != nil {
		return nil, err
	}
	s.opts = opts
	if s.f.OneWriter {
		s.writeSlot = make(chan struct{}, 1)
	}
	s.Conn = &Conn{s: s, idb: s.db, raw: dbConn{s.db.DB}}
	s.db.AddQueryHook(bunWatch{&s.watch})
	if s.bulk != nil {
		s.bulk.db.AddQueryHook(bunWatch{&s.watch})
	}
	if s.tables, err = buildTables(s.db); err != nil {
		s.Close()
		return nil, err
	}
	if s.joins, err = buildJoinTables(s.db, s.tables); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("storage: open %s: %w", redact(url), err)
	}
	return s, nil
}

// openSQLite opens a SQLite file (or ":memory:") with its dialect, whose
// connections get the store's note triggers, armed through it
// (eventtrigger.go).
func openSQLite(path string) (*Store, error) {
	s := &Store{}
	d, err := sqlite.Open(path, sqlite.Options{Notes: s.notes})
	if err != nil {
		return nil, err
	}
	s.d, s.f, s.db, s.armer, s.actors, s.marks, s.checkpoints = d, *d.Features(), d.DB(), d, d, d, d
	if bulk := d.Bulk(); bulk != nil {
		s.bulk = &bulkPool{db: bulk, auditor: d}
	}
	return s, nil
}

// openPostgres opens PostgreSQL's pool with its dialect.
func openPostgres(ctx context.Context, url string, opts postgres.Options) (*Store, error) {
	d, err := postgres.Open(ctx, url, redact(url), opts)
	if err != nil {
		return nil, err
	}
	return &Store{d: d, f: *d.Features(), db: d.DB(), native: d.Native()}, nil
}

// Pooler is what stands between the store and its server, as opened
// (Options.Pooler): PoolerNone or PoolerTransaction.
func (s *Store) Pooler() string {
	if s.opts.Pooler == "" {
		return PoolerNone
	}
	return s.opts.Pooler
}

// Close releases the database connections.
func (s *Store) Close() error {
	s.closeReplica()
	s.stmts.close()
	if s.bulk != nil {
		s.bulk.stmts.close()
	}
	if err := s.d.Close(); err != nil {
		return fmt.Errorf("storage: close: %w", err)
	}
	return nil
}

// Ping checks that the database answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("storage: ping %s: %w", s.d.Name(), err)
	}
	return nil
}

// DB is the Bun handle, for model queries inside storage and for tests. The
// generic queries should be preferred: they keep the write order on SQLite.
func (s *Store) DB() *bun.DB { return s.db }

// Features are the database's differences (storage/dialect), for the
// record stores beside storage, which write typed queries of their own.
func (c *Conn) Features() *dialect.Features { return &c.s.f }

// redact hides a password in a database URL before it reaches a message.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if i := strings.Index(raw, "://"); i >= 0 && strings.Contains(raw[i:], "@") {
			return raw[:i] + "://..."
		}
		return raw
	}
	return u.Redacted()
}
