package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// MigrateQueue creates or upgrades River's tables through its SQLite
// driver, on the store's pool.
func (d *DB) MigrateQueue(ctx context.Context, cfg *rivermigrate.Config) error {
	m, err := rivermigrate.New(riversqlite.New(d.db.DB), cfg)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// NewJobClient makes River's client on the side connection (SideDB), in
// River's poll-only mode (pollingSQLite).
func (d *DB) NewJobClient(cfg *river.Config, host dialect.Host) (dialect.JobClient, error) {
	db, own, err := d.SideDB(host.AcquireWrite)
	if err != nil {
		return nil, err
	}
	jc := &jobClient{host: host}
	if own {
		jc.own = db
	}
	if jc.Client, err = river.NewClient[*sql.Tx](pollingSQLite{riversqlite.New(db)}, cfg); err != nil {
		_ = jc.Close()
		return nil, err
	}
	return jc, nil
}

// jobClient is River's client on SQLite; its transactions are the store's
// write transactions (dialect.Host.SQLTx), so that jobs inserted in them
// commit with the store's rows.
type jobClient struct {
	*river.Client[*sql.Tx]
	host dialect.Host
	own  *sql.DB // the side connection, when the client has its own
}

// Tx runs fn in one write transaction of the store.
func (c *jobClient) Tx(ctx context.Context, fn func(exec dialect.ExecFunc, insert dialect.InsertFunc) error) error {
	return c.host.SQLTx(ctx, func(tx *sql.Tx) error {
		exec := func(query string, args ...any) (int64, error) {
			res, err := tx.ExecContext(ctx, query, args...)
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		}
		insert := func(p []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
			return c.InsertManyTx(ctx, tx, p)
		}
		return fn(exec, insert)
	})
}

// Close closes the side connection the client had of its own.
func (c *jobClient) Close() error {
	if c.own == nil {
		return nil
	}
	err := c.own.Close()
	c.own = nil
	return err
}

// pollingSQLite is River's SQLite driver in River's poll-only mode.
//
// SQLite has no LISTEN/NOTIFY: the driver has River insert a row into
// river_notification with every job and poll that table every 50 ms, and a
// worker waits for that poll before it fetches jobs just queued (a batch's
// first chunks started 15-45 ms after its 202, on a batch of one second).
// Without a listener, River wakes the process's own workers as soon as it
// queues a job outside a transaction (a batch's chunks, a webhook test),
// and finds the others at its fetch poll (Config.PollEvery): the jobs
// inserted in a transaction (webhook deliveries, whose dispatch runs every
// WebhookPoll anyway), and those of another process on the same file.
type pollingSQLite struct{ *riversqlite.Driver }

func (pollingSQLite) SupportsListener() bool     { return false }
func (pollingSQLite) SupportsListenNotify() bool { return false }

// SideDB opens the SQLite file once more, on one connection, for a client
// that needs a database/sql handle of its own (River's SQLite driver asks
// for one connection); it takes turns with the store's writers at the write
// slot through acquire (sideconn.go), and own tells the caller to close it.
// An in-memory database exists on the store's connection only, which is
// then shared (own false).
func (d *DB) SideDB(acquire func(ctx context.Context) (func(), error)) (db *sql.DB, own bool, err error) {
	var file string
	if err := d.db.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		return nil, false, fmt.Errorf("storage: side connection: %w", err)
	}
	if file == "" {
		return d.db.DB, false, nil
	}
	// Its transactions and statements queue for the write slot (sideconn.go).
	db = sql.OpenDB(slotConnector{connector: connector{d: &sqlite.Driver{}, dsn: DSN(file)}, acquire: acquire})
	db.SetMaxOpenConns(1)
	return db, true, nil
}
