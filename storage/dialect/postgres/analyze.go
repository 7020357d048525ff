package postgres

import (
	"context"
	"fmt"
)

// grownTables lists the tables of the current schema whose rows changed
// (inserted, updated, deleted) since their last analysis by more than they
// held then, and 50 more: tables never analyzed once they hold rows, then
// at about each doubling. Autovacuum, when on, analyzes them at a tenth of
// that; this is the backstop when it is off or behind. A change counts once
// its transaction committed (an ANALYZE beside a bulk INSERT still running
// sees the pages it wrote but not its rows), as the statistics collector
// reports it, within a few seconds.
const grownTables = `SELECT quote_ident(s.schemaname) || '.' || quote_ident(s.relname)
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > 50 + greatest(c.reltuples, 0)
ORDER BY s.relname`

// Optimize analyzes the tables that have grown (grownTables). Autovacuum
// would, when it is on and keeps up; when it is off or behind (a table
// filled faster than its analyze threshold is met), the plans PostgreSQL
// keeps for a connection's prepared statements stay those it made when the
// table was small: pgx prepares each statement once per connection, and
// after five runs PostgreSQL may keep a generic plan, which nothing but a
// change of the table's definition or statistics makes it plan again. A
// plan made for 50 accounts read every account of the organization to find
// the 50 of a page of contacts (include=accounts): 221 ms a statement at
// 200,000 accounts, growing with the table (issue 30, item 7;
// docs/scaling.md, "Data that grows"). ANALYZE updates the statistics and
// invalidates the plans that read the table, in every session; the
// housekeeping runs Optimize every minute. A table is analyzed again only
// once it has about doubled, so a table that stops growing costs one
// catalog query a minute.
func (d *DB) Optimize(ctx context.Context) error {
	rows, err := d.db.QueryContext(ctx, grownTables)
	if err != nil {
		return fmt.Errorf("storage: optimize: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("storage: optimize: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storage: optimize: %w", err)
	}
	for _, t := range tables {
		if _, err := d.db.ExecContext(ctx, "ANALYZE "+t); err != nil {
			return fmt.Errorf("storage: optimize: analyze %s: %w", t, err)
		}
	}
	return nil
}
