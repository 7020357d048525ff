package storage

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/entityapi/entityapi/storage/isodata"
)

// migrationFiles holds one set of SQL migrations for both databases, named
// as bun/migrate expects (NNNN_name.tx.up.sql: run in one transaction).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// goSteps are the parts of migrations written in Go, keyed by migration name
// (the number). They run after the migration's SQL, in its transaction.
var goSteps = map[string]func(ctx context.Context, db *bun.DB, conn bun.IConn) error{
	"0001": loadISOData,
	"0005": loadCurrencies,
}

// migrationLockWait bounds how long Migrate waits for another process's
// migration to finish before reporting the lock.
const migrationLockWait = 2 * time.Minute

// Migrate applies the pending migrations; with none pending it does nothing.
// Concurrent Migrate calls from several processes take turns through
// bun/migrate's lock table.
func (s *Store) Migrate(ctx context.Context) (err error) {
	release, err := s.acquireWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	ms, err := newMigrations()
	if err != nil {
		return err
	}
	m := s.migrator(ms)
	if err := initMigrator(ctx, m); err != nil {
		return err
	}
	if err := s.lockMigrations(ctx, m); err != nil {
		return err
	}
	defer func() {
		if uerr := m.Unlock(context.WithoutCancel(ctx)); uerr != nil {
			err = errors.Join(err, fmt.Errorf("storage: migrate: unlock: %w", uerr))
		}
	}()
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("storage: migrate: %w", err)
	}
	if err := s.applySearchConfiguration(ctx); err != nil {
		return err
	}
	if err := s.installAudit(ctx); err != nil {
		return err
	}
	if err := s.Conn.writeNotes(ctx); err != nil { // notes a write from outside the store left
		return err
	}
	if err := s.migrateQueue(ctx); err != nil {
		return err
	}
	return s.d.Renew(ctx) // the note triggers of new tables
}

// migrateQueue creates or upgrades the job queue's tables (River's own
// migrations), under the same lock as ours.
func (s *Store) migrateQueue(ctx context.Context) error {
	cfg := &rivermigrate.Config{Logger: quietLogger(slog.Default())}
	if err := s.d.MigrateQueue(ctx, cfg); err != nil {
		return fmt.Errorf("storage: migrate the job queue: %w", err)
	}
	return nil
}

// Pending returns how many migrations are not yet applied (for /readyz). It
// only reads, so it also works on a database nobody has migrated yet.
func (s *Store) Pending(ctx context.Context) (int, error) {
	ms, err := newMigrations()
	if err != nil {
		return 0, err
	}
	exists, err := s.hasTable(ctx, "bun_migrations")
	if err != nil {
		return 0, fmt.Errorf("storage: pending migrations: %w", err)
	}
	if !exists {
		return len(ms.Sorted()), nil
	}
	status, err := s.migrator(ms).MigrationsWithStatus(ctx)
	if err != nil {
		return 0, fmt.Errorf("storage: pending migrations: %w", err)
	}
	return len(status.Unapplied()), nil
}

// newMigrations reads the embedded migration files.
func newMigrations() (*migrate.Migrations, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("storage: migrations: %w", err)
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, fmt.Errorf("storage: migrations: %w", err)
	}
	return ms, nil
}

// migrator builds bun/migrate's migrator over the embedded files, with this
// dialect's placeholders and the Go steps.
func (s *Store) migrator(ms *migrate.Migrations) *migrate.Migrator {
	return migrate.NewMigrator(s.db, ms,
		migrate.WithTemplateData(s.d.Types()),
		// Mark a migration applied only once it committed, so a failed one
		// is retried on the next start instead of being skipped.
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.AfterMigration(func(ctx context.Context, conn bun.IConn, mig *migrate.Migration) error {
			if step := goSteps[mig.Name]; step != nil {
				return step(ctx, s.db, conn)
			}
			return nil
		}),
	)
}

// initMigrator creates bun/migrate's tables if needed. Processes starting
// together on a fresh PostgreSQL database can collide on CREATE TABLE IF NOT
// EXISTS (a duplicate catalog entry), so a failure is retried a few times.
func initMigrator(ctx context.Context, m *migrate.Migrator) error {
	var err error
	for range 3 {
		if err = m.Init(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("storage: migrate: create the bookkeeping tables: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("storage: migrate: create the bookkeeping tables: %w", err)
}

// lockMigrations takes bun/migrate's lock (a row in bun_migration_locks),
// waiting while another process holds it. A process that died while
// migrating leaves the row behind; the message says how to clear it.
//
// On SQLite a process that migrates holds the whole file in its
// migration's transaction: the lock's INSERT then waits busy_timeout and
// fails as unavailable (SQLITE_BUSY) rather than on the row, when one
// migration runs longer than that (a backfill of a large table). That is
// the lock held too, and waited for the same way (TestMigrateWaitsForABusyFile);
// so is a database that cannot be reached a moment, up to the same bound.
func (s *Store) lockMigrations(ctx context.Context, m *migrate.Migrator) error {
	deadline := time.Now().Add(migrationLockWait)
	for {
		err := m.Lock(ctx)
		if err == nil {
			return nil
		}
		held := s.uniqueError("", err) != nil
		if !held && !s.d.Unavailable(err) {
			return fmt.Errorf("storage: migrate: lock: %w", err)
		}
		switch {
		case time.Now().Before(deadline):
		case held:
			return fmt.Errorf("storage: migrate: another process has held the migration lock for %s; "+
				"if none is migrating, delete the row from bun_migration_locks", migrationLockWait)
		default:
			return fmt.Errorf("storage: migrate: lock: waited %s: %w", migrationLockWait, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("storage: migrate: waiting for the migration lock: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// hasTable reports whether a table exists in the current schema.
func (s *Store) hasTable(ctx context.Context, name string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, s.f.HasTable, name).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// loadISOData is migration 0001's Go step: it fills countries and regions
// from the embedded ISO 3166 data, insertChunk rows per statement, on conn
// (the migration's transaction). db supplies the dialect for Bun's builder.
func loadISOData(ctx context.Context, db *bun.DB, conn bun.IConn) error {
	cs, err := isodata.Countries()
	if err != nil {
		return err
	}
	countries := make([]Country, len(cs))
	for i, c := range cs {
		countries[i] = Country{
			Code: c.Code, ISO3: c.ISO3,
			NameEN: c.Names["en"], NameDE: c.Names["de"], NameFR: c.Names["fr"], NameES: c.Names["es"],
		}
	}
	if err := insertModels(ctx, db, conn, countries); err != nil {
		return fmt.Errorf("load countries: %w", err)
	}

	rs, err := isodata.Regions()
	if err != nil {
		return err
	}
	regions := make([]Region, len(rs))
	for i, r := range rs {
		regions[i] = Region{
			Code: r.Code, CountryCode: r.Country, SubCode: r.SubCode,
			NameEN: r.Names["en"], NameDE: r.Names["de"], NameFR: r.Names["fr"], NameES: r.Names["es"],
		}
	}
	if err := insertModels(ctx, db, conn, regions); err != nil {
		return fmt.Errorf("load regions: %w", err)
	}
	return nil
}

// loadCurrencies fills the currencies table from the embedded ISO 4217 list.
func loadCurrencies(ctx context.Context, db *bun.DB, conn bun.IConn) error {
	cs, err := isodata.Currencies()
	if err != nil {
		return err
	}
	rows := make([]Currency, len(cs))
	for i, c := range cs {
		rows[i] = Currency{Code: c.Code, Name: c.Name, Symbol: c.Symbol}
	}
	if err := insertModels(ctx, db, conn, rows); err != nil {
		return fmt.Errorf("load currencies: %w", err)
	}
	return nil
}

// insertModels inserts a slice of Bun models in multi-row statements.
func insertModels[T any](ctx context.Context, db *bun.DB, conn bun.IConn, rows []T) error {
	for start := 0; start < len(rows); start += insertChunk {
		chunk := rows[start:min(start+insertChunk, len(rows))]
		if _, err := db.NewInsert().Conn(conn).Model(&chunk).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
