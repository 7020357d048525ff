package storage

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The full-text columns of PostgreSQL are generated from the searched
// attributes in one text-search configuration (Options.SearchConfiguration),
// written into each column's expression: the migrations build them in
// simple, and a search reads them in the configuration the store was opened
// with. A column built in another one would find words its query never
// produces (english stems "running" to "run"; simple keeps it), so Migrate
// rebuilds, under the migration lock, every column whose expression names
// another configuration: the column is dropped and added again (PostgreSQL
// computes it for every row, a rewrite of the table), with its GIN index,
// in one transaction per table. docs/queries.md, "Search", tells operators
// what that costs; every process of one database must name the same
// configuration, or each start rebuilds what the last one built.

// applySearchConfiguration rebuilds the full-text columns built in another
// configuration than the store's; nothing where the dialect keeps no such
// columns (SQLite), or when the store was opened without naming one
// (Options.SearchConfiguration).
func (s *Store) applySearchConfiguration(ctx context.Context) error {
	if s.f.SearchVector == nil || s.opts.SearchConfiguration == "" {
		return nil
	}
	// The configuration as PostgreSQL prints it in an expression (its
	// schema left out when the search path finds it); an unknown name is
	// the server's error, and stops the start.
	var shown string
	if err := s.db.QueryRowContext(ctx, "SELECT CAST(CAST(? AS regconfig) AS text)", s.f.SearchConfiguration).Scan(&shown); err != nil {
		return fmt.Errorf("storage: search configuration %q: %w", s.f.SearchConfiguration, err)
	}
	tables := make([]string, 0, len(SearchColumns))
	for table := range SearchColumns {
		tables = append(tables, table)
	}
	slices.Sort(tables)
	for _, table := range tables {
		if err := s.rebuildSearchColumns(ctx, table, "'"+shown+"'::regconfig"); err != nil {
			return err
		}
	}
	return nil
}

// rebuildSearchColumns rebuilds, in one transaction, the columns of
// table's indexes whose expression does not name the configuration want
// (as PostgreSQL prints it).
func (s *Store) rebuildSearchColumns(ctx context.Context, table, want string) error {
	indexes := searchIndexes(table)
	langs := make([]string, 0, len(indexes))
	for lang := range indexes {
		langs = append(langs, lang)
	}
	slices.Sort(langs)
	var stale []string
	for _, lang := range langs {
		col := dialect.SearchIndexColumn("search_vector", lang)
		var expr string
		err := s.db.QueryRowContext(ctx, "SELECT coalesce(generation_expression, '') FROM information_schema.columns "+
			"WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?", table, col).Scan(&expr)
		if err != nil {
			return fmt.Errorf("storage: search configuration: %s.%s: %w", table, col, err)
		}
		if !strings.Contains(expr, want) {
			stale = append(stale, lang)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	slog.Info("rebuilding full-text indexes in the search configuration", "table", table,
		"configuration", s.f.SearchConfiguration, "indexes", len(stale))
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, lang := range stale {
			col := dialect.SearchIndexColumn("search_vector", lang)
			stmts := []string{
				"ALTER TABLE " + table + " DROP COLUMN " + col,
				"ALTER TABLE " + table + " ADD COLUMN " + col + " tsvector GENERATED ALWAYS AS (" +
					s.f.SearchVector(indexes[lang]) + ") STORED",
				"CREATE INDEX " + table + "_" + col + "_idx ON " + table + " USING GIN (" + col + ")",
			}
			for _, stmt := range stmts {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("storage: search configuration: %s: %w", stmt, err)
				}
			}
		}
		return nil
	})
}
