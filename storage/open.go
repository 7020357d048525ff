package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	// modernc is pure Go, so the binary and CI build with CGO_ENABLED=0.
	_ "modernc.org/sqlite"
)

// engine names the database behind a Store; its value is what Dialect reports.
type engine string

const (
	engineSQLite   engine = "sqlite"
	enginePostgres engine = "postgres"
)

// sqlitePragmas are applied to every SQLite connection. WAL lets readers run
// beside a writer; busy_timeout covers writers of other processes (this
// process serializes its own, see Store.writeSlot); _txlock=immediate takes
// the write lock at BEGIN so a transaction never fails half-way on an upgrade;
// case_sensitive_like makes LIKE compare as on PostgreSQL.
const sqlitePragmas = "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
	"&_pragma=synchronous(NORMAL)&_pragma=case_sensitive_like(1)&_txlock=immediate"

// sqliteReadConns bounds the SQLite pool. One *sql.DB serves reads and the
// single writer: a writer waits for the write slot before it takes a
// connection, so at most one connection is ever held by a write and the others
// stay free for readers, which WAL never blocks. A separate read-only pool
// would buy little more at this size. (Batch jobs write on one more
// connection, without note triggers: bulkconn.go.)
const sqliteReadConns = 4

// minPoolConns is the PostgreSQL pool size unless the URL sets one.
const minPoolConns = 20

// Store is entityapi's database. Its embedded Conn runs the generic queries
// outside any transaction; Tx runs them in one.
type Store struct {
	*Conn

	db     *bun.DB
	pool   *pgxpool.Pool // PostgreSQL only
	engine engine

	// writeSlot serializes write transactions of this process on SQLite
	// (nil on PostgreSQL). SQLite allows one writer per file; waiting here,
	// honouring the context, beats failing with SQLITE_BUSY after busy_timeout.
	writeSlot chan struct{}
	// queue holds the single writes waiting for the slot, which the writer
	// that takes it commits together (writegroup.go); SQLite only.
	queue writeQueue

	// memory: a ":memory:" SQLite database (one connection, kept forever).
	memory bool
	// bulk is a SQLite file's connection without note triggers for the
	// transactions of batch chunks (bulkconn.go); nil otherwise.
	bulk *bulkPool
	// armed is the change event the SQLite note triggers record for the
	// write being executed (eventtrigger.go); nil between writes.
	armed atomic.Pointer[armedNote]

	tables map[string]*Table
	joins  map[string]*JoinTable

	watch statementWatch // every statement: counted, and seen by the hooks
	stmts preparedCache  // SQLite only (see statement.go)
}

// CheckURL tells, without connecting, whether url names a database Open can
// open: "sqlite:PATH" with a path, or a postgres:// URL pgx can parse. The
// error says what is wrong and never repeats a password.
func CheckURL(url string) error {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		if strings.TrimPrefix(url, "sqlite:") == "" {
			return fmt.Errorf("%q: sqlite: needs a file path (sqlite:PATH) or :memory:", url)
		}
		return nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		if _, err := pgxpool.ParseConfig(url); err != nil {
			// pgx's own message repeats the URL; its cause alone, when there is
			// one, is the part worth reading.
			if cause := errors.Unwrap(err); cause != nil {
				err = cause
			}
			return fmt.Errorf("%s: %w", redact(url), err)
		}
		return nil
	}
	return fmt.Errorf("%q: want sqlite:PATH or postgres://USER@HOST:PORT/DATABASE", redact(url))
}

// Open connects to the database named by url: "sqlite:PATH" (the parent
// directory is created), "sqlite::memory:" (a private in-memory database on a
// single connection: a read outside a running transaction waits for it), or
// "postgres://..." / "postgresql://...". It checks that the database answers
// but does not migrate it (see Migrate).
func Open(ctx context.Context, url string) (*Store, error) {
	var (
		s   *Store
		err error
	)
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		s, err = openSQLite(strings.TrimPrefix(url, "sqlite:"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		s, err = openPostgres(ctx, url)
	default:
		return nil, fmt.Errorf("storage: unsupported database URL %q (want sqlite:PATH or postgres://...)", redact(url))
	}
	if err != nil {
		return nil, err
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

// openSQLite opens a SQLite file (or ":memory:") with modernc's driver.
func openSQLite(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("storage: database URL \"sqlite:\" has no path (want sqlite:PATH)")
	}
	memory := path == ":memory:"
	if !memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("storage: create directory for %s: %w", path, err)
		}
	}
	s := &Store{engine: engineSQLite, writeSlot: make(chan struct{}, 1), memory: memory}
	sqldb := sql.OpenDB(newSQLiteConnector(s, sqliteDSN(path)))
	if memory {
		// Each connection to ":memory:" is a database of its own, and closing
		// the last one loses it: keep exactly one, forever.
		sqldb.SetMaxOpenConns(1)
		sqldb.SetMaxIdleConns(1)
		sqldb.SetConnMaxLifetime(0)
		sqldb.SetConnMaxIdleTime(0)
	} else {
		sqldb.SetMaxOpenConns(sqliteReadConns)
		sqldb.SetMaxIdleConns(sqliteReadConns)
		s.bulk = openBulkPool(sqliteDSN(path))
	}
	s.db = bun.NewDB(sqldb, sqliteDialect{sqlitedialect.New()})
	return s, nil
}

// openPostgres opens a pgx pool and lets Bun use it through database/sql, so
// the same pool can later be handed to other pgx users (River).
func openPostgres(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redact(url), err)
	}
	// pgx's default (the larger of 4 and the CPUs) is too small once batch
	// workers, the job queue's own queries and API requests share the pool; a
	// pool_max_conns in the URL still decides.
	if !strings.Contains(url, "pool_max_conns") && cfg.MaxConns < minPoolConns {
		cfg.MaxConns = minPoolConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", redact(url), err)
	}
	return &Store{
		db:     bun.NewDB(stdlib.OpenDBFromPool(pool), pgdialect.New()),
		pool:   pool,
		engine: enginePostgres,
	}, nil
}

// Close releases the database connections.
func (s *Store) Close() error {
	s.stmts.close()
	err := s.db.Close()
	if s.bulk != nil {
		err = errors.Join(err, s.bulk.close())
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if err != nil {
		return fmt.Errorf("storage: close: %w", err)
	}
	return nil
}

// Ping checks that the database answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("storage: ping %s: %w", s.engine, err)
	}
	return nil
}

// DB is the Bun handle, for model queries inside storage and for tests. The
// generic queries should be preferred: they keep the write order on SQLite.
func (s *Store) DB() *bun.DB { return s.db }

// PgxPool is the PostgreSQL connection pool, to be shared with other pgx users
// such as the job queue; nil on SQLite.
func (s *Store) PgxPool() *pgxpool.Pool { return s.pool }

// sqlite reports whether the store runs on SQLite, where SQL differs a little.
func (s *Store) sqlite() bool { return s.engine == engineSQLite }

// sqliteTimeLayout is the single text form of times on SQLite: UTC, space
// separated, no zone, as SQLite's own CURRENT_TIMESTAMP writes it. One fixed
// width form makes text comparison chronological; fractions (never written by
// the generic queries) still sort correctly after the whole second.
const sqliteTimeLayout = "2006-01-02 15:04:05.999999999"

// sqliteDialect is Bun's SQLite dialect writing times in sqliteTimeLayout.
// Bun formats every argument into the SQL text through the dialect, so model
// writes, generic writes and conditions all use the same form; Bun's default
// ("...+00:00") would not compare correctly with CURRENT_TIMESTAMP values.
type sqliteDialect struct {
	*sqlitedialect.Dialect
}

// AppendTime writes tm as a quoted UTC string in sqliteTimeLayout.
func (sqliteDialect) AppendTime(b []byte, tm time.Time) []byte {
	b = append(b, '\'')
	b = tm.UTC().AppendFormat(b, sqliteTimeLayout)
	return append(b, '\'')
}

// sqliteDSN is the data source name of a SQLite file with sqlitePragmas.
// SQLite reads the name as a URI (the driver passes SQLITE_OPEN_URI), so
// characters that end or escape the path are percent-encoded.
func sqliteDSN(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?" + sqlitePragmas
}

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
