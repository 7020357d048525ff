// Package sqlite is storage's dialect for SQLite (modernc's pure-Go
// driver): how a file is opened and its pool tuned, the one text form of
// its times, how its errors read, its SQL forms, River's SQLite driver and
// the side connection that driver gets. It knows nothing of storage: the
// store hands it what it needs (its SQL functions, its connection hook,
// its write slot) through storage/dialect.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// pragmas are applied to every SQLite connection. WAL lets readers run
// beside a writer; busy_timeout covers writers of other processes (this
// process serializes its own, see storage's Store.writeSlot); _txlock=immediate takes
// the write lock at BEGIN so a transaction never fails half-way on an upgrade;
// case_sensitive_like makes LIKE compare as on PostgreSQL; no connection
// checkpoints the log in its commits, the checkpointer does (checkpoint.go).
const pragmas = "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
	"&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(0)&_pragma=case_sensitive_like(1)&_txlock=immediate"

// ReadConns bounds the SQLite pool. One *sql.DB serves reads and the
// single writer: a writer waits for the write slot before it takes a
// connection, so at most one connection is ever held by a write and the others
// stay free for readers, which WAL never blocks. A separate read-only pool
// would buy little more at this size. (Batch jobs write on one more
// connection, without note triggers: Bulk.)
const ReadConns = 4

// TimeLayout is the single text form of times on SQLite (dialect.TextTime).
const TimeLayout = dialect.TextTime

// Options are what the store adds to every connection of the pool.
type Options struct {
	// Notes describe the note triggers each new connection of the pool
	// gets (triggers.go), and, at Renew, the one connection of
	// ":memory:"; nil: none yet.
	Notes func() *dialect.Notes
}

// DB is an opened SQLite database: the store's pool and, for a file, the
// bulk connection.
type DB struct {
	db     *bun.DB
	path   string
	memory bool
	bulk   *bun.DB
	opts   Options
	// armed is the note the triggers record for the write being executed
	// (triggers.go); nil between writes.
	armed atomic.Pointer[dialect.ArmedNote]
	// actor is who makes the writes the audit triggers record (audit.go);
	// nil outside the store's writes.
	actor atomic.Pointer[dialect.Actor]
	// watch reads the commits of a file's processes (commitmark.go); it
	// opens at the first CommitMark.
	watch commitWatch
	// checkpoints copies a file's log into it (checkpoint.go); nil for
	// ":memory:".
	checkpoints *checkpointer
}

var _ dialect.Dialect = (*DB)(nil)

// Open opens a SQLite file (its parent directory created) or ":memory:"
// (a private database on a single connection, kept forever).
func Open(path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("storage: database URL \"sqlite:\" has no path (want sqlite:PATH)")
	}
	memory := path == ":memory:"
	if !memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("storage: create directory for %s: %w", path, err)
		}
	}
	d := &DB{path: path, memory: memory, opts: opts}
	sqldb := sql.OpenDB(d.connector(DSN(path)))
	if memory {
		// Each connection to ":memory:" is a database of its own, and closing
		// the last one loses it: keep exactly one, forever.
		sqldb.SetMaxOpenConns(1)
		sqldb.SetMaxIdleConns(1)
		sqldb.SetConnMaxLifetime(0)
		sqldb.SetConnMaxIdleTime(0)
	} else {
		sqldb.SetMaxOpenConns(ReadConns)
		sqldb.SetMaxIdleConns(ReadConns)
		d.bulk = d.openBulk(DSN(path))
		d.checkpoints = startCheckpointer(DSN(path))
	}
	d.db = bun.NewDB(sqldb, timeDialect{sqlitedialect.New()})
	return d, nil
}

// connector is a connector for dsn whose connections know the note
// functions (triggers.go) and get the note triggers of opts.Notes.
func (d *DB) connector(dsn string) driver.Connector {
	drv := &sqlite.Driver{}
	d.registerNoteFunctions(drv)
	d.registerActorFunction(drv)
	if d.opts.Notes != nil {
		drv.RegisterConnectionHook(func(conn sqlite.ExecQuerierContext, _ string) error {
			return installTriggers(context.Background(), conn, d.opts.Notes())
		})
	}
	return connector{d: drv, dsn: dsn}
}

// connector opens connections to one file with a driver of its own.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// Name is "sqlite".
func (d *DB) Name() string { return "sqlite" }

// DB is the Bun handle on the pool.
func (d *DB) DB() *bun.DB { return d.db }

// Bulk is the connection of batch chunks' transactions: the same file, one
// connection, no connection hook (hence no note triggers), nil for
// ":memory:". See storage's bulkconn.go.
func (d *DB) Bulk() *bun.DB { return d.bulk }

// openBulk opens the bulk connection of the SQLite file dsn names: one
// connection (it is only used under the write slot), with the store's
// pragmas and no note triggers. It has the audit triggers of updates,
// deletes and links (audit.go), not those of inserts: the store writes the
// audit rows of the rows it inserts there set-based (InsertedAudits).
func (d *DB) openBulk(dsn string) *bun.DB {
	drv := &sqlite.Driver{}
	d.registerActorFunction(drv)
	if d.opts.Notes != nil {
		drv.RegisterConnectionHook(func(conn sqlite.ExecQuerierContext, _ string) error {
			return installTriggers(context.Background(), conn, bulkNotes(d.opts.Notes()))
		})
	}
	sqldb := sql.OpenDB(connector{d: drv, dsn: dsn})
	sqldb.SetMaxOpenConns(1)
	sqldb.SetMaxIdleConns(1)
	return bun.NewDB(sqldb, timeDialect{sqlitedialect.New()})
}

// bulkNotes is n for the bulk connection: no note triggers, and the audit
// triggers without those of inserts.
func bulkNotes(n *dialect.Notes) *dialect.Notes {
	if n == nil {
		return nil
	}
	a := *n
	a.Tables, a.InsertsUnaudited = nil, true
	return &a
}

// Close closes the pool and the bulk connection; the checkpointer stops
// first, so that the last connection to close checkpoints the whole log,
// and the commit watch closes last (commitmark.go: its descriptor of the
// -shm file must outlive every connection).
func (d *DB) Close() error {
	var err error
	if d.checkpoints != nil {
		err = d.checkpoints.close()
	}
	err = errors.Join(err, d.db.Close())
	if d.bulk != nil {
		err = errors.Join(err, d.bulk.Close())
	}
	err = errors.Join(err, d.closeWatch())
	return err
}

// PoolStats reports database/sql's pool.
func (d *DB) PoolStats() dialect.PoolStats {
	st := d.db.DB.Stats()
	return dialect.PoolStats{MaxOpen: st.MaxOpenConnections, Open: st.OpenConnections, InUse: st.InUse, Idle: st.Idle,
		WaitCount: st.WaitCount, WaitDuration: st.WaitDuration}
}

// Renew gives every connection the note triggers of the tables a migration
// may just have created: the idle ones are closed (new ones get them as
// they open), or, for ":memory:" (one connection, never closed), they are
// installed on it.
func (d *DB) Renew(ctx context.Context) error {
	if d.memory {
		conn, err := d.db.DB.Conn(ctx)
		if err != nil {
			return fmt.Errorf("storage: note triggers: %w", err)
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			c, ok := dc.(sqlite.ExecQuerierContext)
			if !ok {
				return fmt.Errorf("storage: note triggers: driver connection %T", dc)
			}
			if d.opts.Notes == nil {
				return nil
			}
			return installTriggers(ctx, c, d.opts.Notes())
		})
	}
	d.db.DB.SetMaxIdleConns(0)
	d.db.DB.SetMaxIdleConns(ReadConns)
	if d.bulk != nil {
		d.bulk.DB.SetMaxIdleConns(0)
		d.bulk.DB.SetMaxIdleConns(1)
	}
	return nil
}

// timeDialect is Bun's SQLite dialect writing times in TimeLayout.
// Bun formats every argument into the SQL text through the dialect, so model
// writes, generic writes and conditions all use the same form; Bun's default
// ("...+00:00") would not compare correctly with CURRENT_TIMESTAMP values.
type timeDialect struct {
	*sqlitedialect.Dialect
}

// AppendTime writes tm as a quoted UTC string in TimeLayout.
func (timeDialect) AppendTime(b []byte, tm time.Time) []byte {
	b = append(b, '\'')
	b = tm.UTC().AppendFormat(b, TimeLayout)
	return append(b, '\'')
}

// DSN is the data source name of a SQLite file with the store's pragmas.
// SQLite reads the name as a URI (the driver passes SQLITE_OPEN_URI), so
// characters that end or escape the path are percent-encoded.
func DSN(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?" + pragmas
}
