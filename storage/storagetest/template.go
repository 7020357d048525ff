package storagetest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Migrating a database (the schema, River's tables, the ISO country and
// region data) is most of what a fresh test database costs. A test binary
// whose TestMain runs Main migrates one template database per dialect, once,
// and every Open after that copies it: a file copy on SQLite, CREATE DATABASE
// ... TEMPLATE on PostgreSQL. The copy is then migrated as before, which finds
// nothing pending but leaves the store in the state a migrated one has (its
// connections renewed for the tables the migrations made).
//
// Templates exist only under Main, which removes them when the tests end, so
// that no run leaves one behind; a binary without Main migrates each
// database as before. A template lives as long as its test binary, so it can
// never be older than the migrations compiled into it.

// templates holds the templates of this test binary, by dialect (and, for
// PostgreSQL, the server TEST_DATABASE_URL names).
var templates struct {
	sync.Mutex
	byKey map[string]*template
}

// template is one dialect's migrated database, made on first use. A failed
// attempt leaves nothing behind and the next Open tries again.
type template struct {
	mu   sync.Mutex
	made bool
	// sqliteFile is the migrated SQLite file, closed, that copies start from.
	sqliteFile string
	// pgName is the migrated PostgreSQL database, with no connection left
	// open (CREATE DATABASE ... TEMPLATE refuses a template in use).
	pgName string
	// remove removes the template when Main ends.
	remove func() error
}

// templateOf returns the template of a dialect, making it on first use, or
// nil when the tests do not run under Main (then nothing would remove it).
func templateOf(dialect string) (*template, error) {
	shared.Lock()
	underMain := shared.main
	shared.Unlock()
	if !underMain {
		return nil, nil
	}
	key := templateKey(dialect)
	templates.Lock()
	if templates.byKey == nil {
		templates.byKey = map[string]*template{}
	}
	tp := templates.byKey[key]
	if tp == nil {
		tp = &template{}
		templates.byKey[key] = tp
	}
	templates.Unlock()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if !tp.made {
		if err := tp.make(dialect); err != nil {
			return nil, fmt.Errorf("template %s database: %w", dialect, err)
		}
		tp.made = true
	}
	return tp, nil
}

// templateKey names the template of a dialect on the servers the tests use:
// the same variables in one process may differ from one test to another.
func templateKey(dialect string) string {
	if dialect != "postgres" {
		return dialect
	}
	return dialect + " " + os.Getenv(EnvURL) + " " + os.Getenv(EnvPoolerURL)
}

// make migrates the template database of a dialect and closes it.
func (tp *template) make(dialect string) error {
	dir := ""
	if dialect == "sqlite" {
		var err error
		if dir, err = os.MkdirTemp("", "storagetest-template-"); err != nil {
			return err
		}
	}
	s, dbURL, drop, err := createMigrated(dialect, dir, true)
	if err != nil {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return err
	}
	// Closing the store checkpoints SQLite's log into the file and ends
	// every PostgreSQL connection to the template.
	if err := s.Close(); err != nil {
		_ = drop()
		return err
	}
	switch dialect {
	case "sqlite":
		tp.sqliteFile = filepath.Join(dir, "test.db")
		for _, extra := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(tp.sqliteFile + extra); err == nil {
				_ = os.RemoveAll(dir)
				return fmt.Errorf("the closed SQLite template still has its %s file", extra)
			}
		}
		tp.remove = func() error { return os.RemoveAll(dir) }
	case "postgres":
		tp.pgName = databaseName(dbURL)
		tp.remove = drop
	}
	return nil
}

// copySQLite copies the template's file to dir/test.db.
func (tp *template) copySQLite(dir string) (string, error) {
	src, err := os.Open(tp.sqliteFile)
	if err != nil {
		return "", err
	}
	defer src.Close()
	path := filepath.Join(dir, "test.db")
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return "", err
	}
	return path, dst.Close()
}

// removeTemplates removes every template this binary made; Main calls it.
func removeTemplates() error {
	templates.Lock()
	defer templates.Unlock()
	var first error
	for key, tp := range templates.byKey {
		if tp.remove == nil {
			continue
		}
		if err := tp.remove(); err != nil && first == nil {
			first = fmt.Errorf("remove the template of %s: %w", key, err)
		}
	}
	templates.byKey = nil
	return first
}

// contextForSetup bounds one database's setup.
func contextForSetup() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), setupTimeout)
}
