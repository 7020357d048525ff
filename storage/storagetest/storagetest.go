// Package storagetest gives tests migrated databases: always SQLite, and
// PostgreSQL when TEST_DATABASE_URL names a server. Every test that touches
// storage goes through it, so every such test runs on both databases.
//
// TEST_DATABASE_URL is an admin URL (postgres://user@host:port/db?...): each
// store gets a fresh database created on that server and dropped afterwards,
// so test binaries can run in parallel. A set but unreachable server fails the
// test; it is never skipped. With CI=true the variable is required.
//
// TEST_DATABASE_POOLER_URL, when set, names a transaction pooler in front of
// that server (PgBouncer: scripts/pgbouncer/start.sh): the databases are
// still created and dropped on the server directly, but every store opens
// its database through the pooler, with storage.PoolerTransaction. CI runs
// the PostgreSQL suite's storage paths that way too.
//
// A package whose TestMain calls Main (or Run) migrates one template database
// per dialect and copies it for each store (template.go): most of a fresh
// database's cost is its migration.
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/entityapi/entityapi/storage"
)

// EnvURL is the environment variable naming the PostgreSQL server.
const EnvURL = "TEST_DATABASE_URL"

// EnvPoolerURL is the environment variable naming a transaction pooler in
// front of the server of EnvURL.
const EnvPoolerURL = "TEST_DATABASE_POOLER_URL"

// setupTimeout bounds creating, migrating or dropping one test database.
const setupTimeout = 2 * time.Minute

// Dialects lists the databases tests run on: "sqlite", then "postgres" when
// TEST_DATABASE_URL is set.
func Dialects() []string {
	if os.Getenv(EnvURL) == "" {
		return []string{"sqlite"}
	}
	return []string{"sqlite", "postgres"}
}

// Each runs fn as the subtests "sqlite" and (with TEST_DATABASE_URL)
// "postgres", each on a fresh migrated store closed and removed afterwards.
func Each(t *testing.T, fn func(t *testing.T, s *storage.Store)) {
	t.Helper()
	requireServerInCI(t)
	for _, d := range Dialects() {
		t.Run(d, func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a fresh migrated store of one dialect ("sqlite" or
// "postgres"), closed and removed when the test ends. Benchmarks use it with
// Dialects.
func Open(t testing.TB, dialect string) *storage.Store {
	t.Helper()
	s, _ := OpenWithURL(t, dialect)
	return s
}

// OpenWithURL is Open that also returns the database's URL, for a test
// that opens it again with other options, as another process would
// (storage.OpenWith, with StoreOptions and its own); the test closes what it
// opens.
func OpenWithURL(t testing.TB, dialect string) (*storage.Store, string) {
	t.Helper()
	requireServerInCI(t)
	dir := ""
	if dialect == "sqlite" {
		dir = t.TempDir()
	}
	s, dbURL, drop, err := create(dialect, dir)
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("storagetest: %v", err)
		}
	})
	return s, dbURL
}

// OpenTwo returns two stores of one dialect on one fresh migrated database,
// as two processes would open it: for tests of what processes share through
// the database. Both are closed, and the database removed, when the test ends.
func OpenTwo(t testing.TB, dialect string) (*storage.Store, *storage.Store) {
	t.Helper()
	requireServerInCI(t)
	dir := ""
	if dialect == "sqlite" {
		dir = t.TempDir()
	}
	first, dbURL, drop, err := create(dialect, dir)
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("storagetest: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	second, err := storage.OpenWith(ctx, dbURL, storeOptions(dialect))
	if err != nil {
		t.Fatalf("storagetest: open a second store: %v", err)
	}
	t.Cleanup(func() { second.Close() })
	return first, second
}

// requireServerInCI fails when CI runs without PostgreSQL: there, a test
// that silently ran on SQLite only would hide PostgreSQL failures.
func requireServerInCI(t testing.TB) {
	t.Helper()
	if os.Getenv("CI") == "true" && os.Getenv(EnvURL) == "" {
		t.Fatalf("CI must set %s", EnvURL)
	}
}

// create returns a new migrated store and its URL and the function that
// closes and removes it. dir holds the SQLite file. Under Main it copies the
// dialect's template (template.go); otherwise it migrates a new database.
func create(dialect, dir string) (*storage.Store, string, func() error, error) {
	if dialect != "sqlite" && dialect != "postgres" {
		return nil, "", nil, fmt.Errorf("unknown dialect %q (want sqlite or postgres)", dialect)
	}
	if dialect == "postgres" {
		if _, err := adminURL(); err != nil {
			return nil, "", nil, err
		}
	}
	tp, err := templateOf(dialect)
	if err != nil {
		return nil, "", nil, err
	}
	if tp == nil {
		return createMigrated(dialect, dir, false)
	}
	ctx, cancel := contextForSetup()
	defer cancel()
	if dialect == "sqlite" {
		path, err := tp.copySQLite(dir)
		if err != nil {
			return nil, "", nil, fmt.Errorf("copy the SQLite template: %w", err)
		}
		dbURL := "sqlite:" + path
		s, err := openMigrated(ctx, dbURL, storage.Options{})
		if err != nil {
			return nil, "", nil, err
		}
		return s, dbURL, s.Close, nil
	}
	return createPostgres(ctx, "TEMPLATE "+tp.pgName, false)
}

// createMigrated opens and migrates a new store: the template of a dialect
// (direct: not through a pooler), or every store of a test binary that does
// not run under Main.
func createMigrated(dialect, dir string, direct bool) (*storage.Store, string, func() error, error) {
	ctx, cancel := contextForSetup()
	defer cancel()
	if dialect == "sqlite" {
		dbURL := "sqlite:" + filepath.Join(dir, "test.db")
		s, err := openMigrated(ctx, dbURL, storage.Options{})
		if err != nil {
			return nil, "", nil, err
		}
		return s, dbURL, s.Close, nil
	}
	return createPostgres(ctx, "", direct)
}

// StoreOptions are how the tests' stores of a dialect connect (through the
// pooler of TEST_DATABASE_POOLER_URL when it is set), for a test that opens
// a store again on OpenWithURL's URL.
func StoreOptions(dialect string) storage.Options { return storeOptions(dialect) }

// storeOptions are how the tests' stores of a dialect connect: through the
// pooler of TEST_DATABASE_POOLER_URL when it is set.
func storeOptions(dialect string) storage.Options {
	if dialect == "postgres" && os.Getenv(EnvPoolerURL) != "" {
		return storage.Options{Pooler: storage.PoolerTransaction}
	}
	return storage.Options{}
}

// storeURL is how a store reaches the database name on the server of
// admin: through the pooler when TEST_DATABASE_POOLER_URL is set, unless
// direct.
func storeURL(admin *url.URL, name string, direct bool) (string, error) {
	u := *admin
	if pooler := os.Getenv(EnvPoolerURL); pooler != "" && !direct {
		pu, err := url.Parse(pooler)
		if err != nil || (pu.Scheme != "postgres" && pu.Scheme != "postgresql") {
			return "", fmt.Errorf("%s must be a postgres:// URL", EnvPoolerURL)
		}
		u = *pu
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Empty returns the URL of a new database of a dialect with nothing in it,
// and the options to open it with (through the pooler, if any); the
// database is removed when the test ends. For tests of migrations and of
// what processes do on one database.
func Empty(t testing.TB, dialect string) (string, storage.Options) {
	t.Helper()
	requireServerInCI(t)
	if dialect == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "empty.db"), storage.Options{}
	}
	u, err := adminURL()
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	ctx, cancel := contextForSetup()
	defer cancel()
	name := "entityapi_test_" + randomHex()
	if err := adminExec(ctx, u.String(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := contextForSetup()
		defer cancel()
		if err := adminExec(ctx, u.String(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("storagetest: %v", err)
		}
	})
	dbURL, err := storeURL(u, name, false)
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	return dbURL, storeOptions(dialect)
}

// adminURL returns TEST_DATABASE_URL, checked to be a postgres:// URL.
func adminURL() (*url.URL, error) {
	admin := os.Getenv(EnvURL)
	if admin == "" {
		return nil, fmt.Errorf("postgres requested but %s is not set", EnvURL)
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("%s must be a postgres:// URL", EnvURL)
	}
	return u, nil
}

// databaseName is the database a postgres:// URL names.
func databaseName(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// createPostgres creates a database entityapi_test_<random hex> on the
// server of TEST_DATABASE_URL (with options, such as TEMPLATE name, when not
// empty), and opens and migrates it: through the pooler of
// TEST_DATABASE_POOLER_URL, if any, unless direct (a template's connections
// must all end when it closes, and a pooler would keep them).
func createPostgres(ctx context.Context, options string, direct bool) (*storage.Store, string, func() error, error) {
	u, err := adminURL()
	if err != nil {
		return nil, "", nil, err
	}
	admin := u.String()
	name := "entityapi_test_" + randomHex()
	stmt := "CREATE DATABASE " + name
	if options != "" {
		stmt += " " + options
	}
	if err := adminExec(ctx, admin, stmt); err != nil {
		return nil, "", nil, err
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		return adminExec(ctx, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
	dbURL, err := storeURL(u, name, direct)
	if err != nil {
		_ = drop()
		return nil, "", nil, err
	}
	opts := storeOptions("postgres")
	if direct {
		opts = storage.Options{}
	}
	s, err := openMigrated(ctx, dbURL, opts)
	if err != nil {
		_ = drop()
		return nil, "", nil, err
	}
	return s, dbURL, func() error {
		cerr := s.Close()
		if err := drop(); err != nil {
			return err
		}
		return cerr
	}, nil
}

// adminExec runs one statement on the admin connection of TEST_DATABASE_URL.
func adminExec(ctx context.Context, admin, stmt string) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, admin)
	if err != nil {
		return fmt.Errorf("%s (%s) is unreachable: %w", EnvURL, redacted(admin), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s on %s: %w", stmt, redacted(admin), err)
	}
	return nil
}

// openMigrated opens url and applies the migrations.
func openMigrated(ctx context.Context, url string, opts storage.Options) (*storage.Store, error) {
	s, err := storage.OpenWith(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}

// shared holds the stores of Shared, one per dialect, for one test binary.
var shared struct {
	sync.Mutex
	main   bool // Main is running the tests
	stores map[string]*sharedStore
}

type sharedStore struct {
	once  sync.Once
	store *storage.Store
	drop  func() error
	dir   string
	err   error
}

// Shared returns one migrated store per dialect for the whole test binary, so
// that tests which can live beside each other (each making its own
// organization, say) do not pay a migration each. The package must call Main
// from TestMain, which removes the stores at the end.
func Shared(t testing.TB, dialect string) *storage.Store {
	t.Helper()
	requireServerInCI(t)
	shared.Lock()
	if !shared.main {
		shared.Unlock()
		t.Fatalf("storagetest.Shared needs func TestMain(m *testing.M) { storagetest.Main(m) }")
	}
	if shared.stores == nil {
		shared.stores = map[string]*sharedStore{}
	}
	ss := shared.stores[dialect]
	if ss == nil {
		ss = &sharedStore{}
		shared.stores[dialect] = ss
	}
	shared.Unlock()
	ss.once.Do(func() {
		if dialect == "sqlite" {
			if ss.dir, ss.err = os.MkdirTemp("", "storagetest-"); ss.err != nil {
				return
			}
		}
		ss.store, _, ss.drop, ss.err = create(dialect, ss.dir)
	})
	if ss.err != nil {
		t.Fatalf("storagetest: shared %s store: %v", dialect, ss.err)
	}
	return ss.store
}

// Main runs the package's tests and then removes the stores made by Shared
// and the template databases (template.go). Call it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has more to do after the tests: it returns
// the exit code instead of exiting.
func Run(m *testing.M) int {
	shared.Lock()
	shared.main = true
	shared.Unlock()
	code := m.Run()
	shared.Lock()
	for d, ss := range shared.stores {
		if ss.drop != nil {
			if err := ss.drop(); err != nil {
				fmt.Fprintf(os.Stderr, "storagetest: remove shared %s store: %v\n", d, err)
				code = 1
			}
		}
		if ss.dir != "" {
			_ = os.RemoveAll(ss.dir)
		}
	}
	shared.main = false
	shared.Unlock()
	if err := removeTemplates(); err != nil {
		fmt.Fprintf(os.Stderr, "storagetest: %v\n", err)
		code = 1
	}
	return code
}
