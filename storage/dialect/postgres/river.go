package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/entityapi/entityapi/storage/dialect"
)

// MigrateQueue creates or upgrades River's tables through its pgx driver.
func (d *DB) MigrateQueue(ctx context.Context, cfg *rivermigrate.Config) error {
	m, err := rivermigrate.New(riverpgxv5.New(d.pool), cfg)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// NewJobClient makes River's client on the store's pool; behind a
// transaction pooler, through pollingPgx.
func (d *DB) NewJobClient(cfg *river.Config, _ dialect.Host) (dialect.JobClient, error) {
	var driver riverdriver.Driver[pgx.Tx] = riverpgxv5.New(d.pool)
	if d.pooled {
		driver = pollingPgx{riverpgxv5.New(d.pool)}
	}
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, err
	}
	return &jobClient{Client: c, pool: d}, nil
}

// pollingPgx is River's pgx driver without LISTEN and NOTIFY, for a pool
// behind a transaction pooler: LISTEN needs a session the pooler does not
// give, so no NOTIFY would reach anyone. River then runs poll-only: it
// wakes this process's own workers as soon as it queues a job outside a
// transaction (a batch's chunks), and finds the other jobs (webhook
// deliveries, queued in a transaction; other processes' jobs) at its fetch
// poll (jobs.Config.PollEvery). The SQLite dialect's pollingSQLite is the
// same for the same reason.
type pollingPgx struct{ *riverpgxv5.Driver }

func (pollingPgx) SupportsListener() bool     { return false }
func (pollingPgx) SupportsListenNotify() bool { return false }

// jobClient is River's client on PostgreSQL; its transactions are pgx's
// own, on the pool.
type jobClient struct {
	*river.Client[pgx.Tx]
	pool *DB
}

// Tx runs fn in one pgx transaction; exec numbers the ? marks.
func (c *jobClient) Tx(ctx context.Context, fn func(exec dialect.ExecFunc, insert dialect.InsertFunc) error) error {
	tx, err := c.pool.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	exec := func(query string, args ...any) (int64, error) {
		tag, err := tx.Exec(ctx, dollars(query), args...)
		return tag.RowsAffected(), err
	}
	insert := func(p []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
		return c.InsertManyTx(ctx, tx, p)
	}
	if err := fn(exec, insert); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Close does nothing: the client has nothing of its own.
func (c *jobClient) Close() error { return nil }

// dollars numbers the ? placeholders of query ($1, $2...).
func dollars(query string) string {
	out := make([]byte, 0, len(query)+8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			out = fmt.Appendf(out, "$%d", n)
			continue
		}
		out = append(out, query[i])
	}
	return string(out)
}
