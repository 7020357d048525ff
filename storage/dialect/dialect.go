// Package dialect is the one seam between storage and the databases it runs
// on, as River's riverdriver is between River and its drivers: what differs
// between SQLite and PostgreSQL (SQL forms, how a pool is opened and tuned,
// how an error is read, whether the database has one writer, how River's
// driver is made) is asked of a Dialect, implemented once per database in
// storage/dialect/sqlite and storage/dialect/postgres. The shared code in
// storage, storage/jobs and storage/authstore asks this interface and never
// the database's name. This package is the leaf both sides import: it holds
// the interface and the plain types it speaks in, and nothing of storage.
package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"github.com/uptrace/bun"
)

// Dialect is one opened database as storage uses it. Open in storage makes
// it (sqlite.Open, postgres.Open) and keeps it for the store's life.
type Dialect interface {
	// Name is the database's name in messages, logs and traces: "sqlite"
	// or "postgres".
	Name() string
	// Features are the differences the generic SQL reads while it writes a
	// statement; the store copies them once, at Open, so that a request
	// pays a field's load for each, as it paid for the name before.
	Features() *Features
	// DB is the Bun handle on the database's pool.
	DB() *bun.DB
	// Close releases the pool and whatever else the dialect opened.
	Close() error
	// PoolStats reports the pool that holds the connections.
	PoolStats() PoolStats
	// Unique reads a unique (or primary key) violation from err: the table
	// (empty when the error does not say) and the columns; ok is false when
	// err is something else.
	Unique(err error) (table string, columns []string, ok bool)
	// ForeignKey tells whether err is a foreign key violation.
	ForeignKey(err error) bool
	// Constraint tells whether err is a constraint violation of any kind
	// (NOT NULL, CHECK... too) that backed out its statement alone,
	// leaving its transaction going.
	Constraint(err error) bool
	// Unavailable tells whether err says the database cannot be reached
	// or cannot work now (a server down or restarting, a connection cut, a
	// full disk): the service's condition, answered 503, not the
	// request's fault (docs/production.md, "Database outages").
	Unavailable(err error) bool
	// Types fill the migrations' placeholders ({{.Serial}}...).
	Types() Types
	// MigrateQueue creates or upgrades River's tables.
	MigrateQueue(ctx context.Context, cfg *rivermigrate.Config) error
	// NewJobClient makes River's client with this database's driver; host
	// is the store that opened the dialect.
	NewJobClient(cfg *river.Config, host Host) (JobClient, error)
	// Renew makes every connection see the tables a migration may just
	// have created (SQLite's note triggers live on each connection).
	Renew(ctx context.Context) error
	// Optimize refreshes the planner's statistics where the database does
	// not by itself; the caller holds the write slot.
	Optimize(ctx context.Context) error
	// CopyFrom sends rows (values in the order of cols) into table with
	// COPY on conn, within its transaction, and returns how many it
	// wrote; only where OwnTxConn.
	CopyFrom(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) (int64, error)
	// Native is the database's own driver for the reads outside a
	// transaction; nil where they go through database/sql.
	Native() Native
}

// CommitMarker is a dialect that can tell, without a statement, whether
// anything was committed to its database since a moment: where its
// processes share memory with the database (a SQLite file in WAL mode).
type CommitMarker interface {
	// CommitMark is a value that every commit of every process changes;
	// ok is false when it cannot be read now, and a caller must then ask
	// the database.
	CommitMark() (mark CommitMark, ok bool)
}

// Checkpointer is a dialect whose commits wait in a log until a checkpoint
// copies them into the database (a SQLite file in WAL mode): the store
// tells it each time one of its writes ends, and it checkpoints beside the
// writers rather than in their commits.
type Checkpointer interface {
	// Wrote says a write transaction of this process has ended; it returns
	// at once.
	Wrote()
}

// CommitMark is what CommitMarker reads: equal marks, read at two moments,
// mean that nothing was committed between them.
type CommitMark [12]uint32

// Host is what a dialect asks of the store that opened it: its write slot
// (the one writer of a SQLite file) and its write transactions.
type Host interface {
	// AcquireWrite waits for the write slot (at once where every writer
	// may write) and returns its release.
	AcquireWrite(ctx context.Context) (release func(), err error)
	// SQLTx runs fn in one write transaction of the store.
	SQLTx(ctx context.Context, fn func(tx *sql.Tx) error) error
}

// JobClient is River's client whatever its driver.
type JobClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	// Tx runs fn in one transaction in which jobs can be inserted (insert)
	// beside statements (exec, whose marks are ?), committed together.
	Tx(ctx context.Context, fn func(exec ExecFunc, insert InsertFunc) error) error
	// Close releases what the client opened for itself (SQLite's side
	// connection), once the client is stopped.
	Close() error
}

type (
	// ExecFunc runs one statement of a JobClient.Tx; ? marks its arguments.
	ExecFunc func(query string, args ...any) (int64, error)
	// InsertFunc inserts jobs in a JobClient.Tx; a unique job already
	// there is returned as a duplicate (UniqueSkippedAsDuplicate).
	InsertFunc func(params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
)

// PoolStats are the figures of the pool holding the connections.
type PoolStats struct {
	MaxOpen, Open, InUse, Idle int
	WaitCount                  int64
	WaitDuration               time.Duration
}

// Types fill the dialect placeholders of the migrations ({{.Serial}} and so
// on), rendered by bun/migrate's template step.
type Types struct {
	Serial    string // an integer primary key the database generates
	Timestamp string // a point in time, stored UTC
	JSON      string // a JSON document
	Now       string // the current time in whole seconds
	// Postgres: the migration runs on PostgreSQL, for the parts only one
	// database has ({{if .Postgres}}...{{end}}: the event outbox).
	Postgres bool
}

// NoteFields is how many event fields an armed note carries
// (ArmedNote.Fields, Notes.Fields).
const NoteFields = 7

// ArmedNote is the change event the note triggers record for the write
// about to run (Features.NoteTriggers): the table and row it is for, and
// the event's fields only the request knows, in the order of Notes.Fields.
type ArmedNote struct {
	Table string
	// Key is the row an update or delete must be for; "" for a create,
	// whose row may be new.
	Key    string
	Fields [NoteFields]driver.Value
	// Met is 1 once a trigger recorded the note: one event per note.
	Met atomic.Int64
}

// Armer arms the note triggers of a dialect that has them (SQLite's DB).
// The store arms a note only while it holds the write slot, alone, so the
// one writer of the process is the only one that can meet it.
type Armer interface {
	// Arm makes n the note of the next write.
	Arm(n *ArmedNote)
	// Disarm takes the armed note away and tells whether a trigger
	// recorded it.
	Disarm() (met bool)
}

// Conn is a driver connection as a connection hook gets it.
type Conn interface {
	driver.ExecerContext
	driver.QueryerContext
}

// Notes describe the note triggers through which a single write records
// its change event in its own statement, where the dialect has them
// (Features.NoteTriggers): the events table they insert into, the action
// each kind of write records (insert, update, delete), the event columns
// the armed note fills (in the order the store's note function answers
// them), and the tables whose writes they record.
type Notes struct {
	Events  string
	Actions [3]string
	Fields  []string
	Tables  []NoteTable
	// Audit describes the audit triggers the connections get beside the
	// note triggers (audit.go); nil: none.
	Audit *Audit
	// InsertsUnaudited leaves out the audit triggers of inserts into entity
	// tables (SQLite's bulk connection: the store writes those audit rows
	// itself, InsertAuditor).
	InsertsUnaudited bool
}

// NoteTable is a table whose row writes the note triggers record.
type NoteTable struct {
	Name, Key string
	// Version is the table's version column; "" when it has none.
	Version string
}
