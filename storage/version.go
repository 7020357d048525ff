package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// VersionColumn is the column of a Versioned table that counts the changes
// of each row (migration 0009): a new row is version 1, and every write that
// changes a row adds one, whatever it changes (its columns, a to-one
// reference, the members of its to-many relationships). The API names a
// record's state by it (ETag) and refuses a write made from a stale read
// (If-Match). A timestamp could not: two changes within one second have the
// same updated_at.
const VersionColumn = "version"

// bumpVersion appends "version = version + 1" to an UPDATE's SET list.
func bumpVersion(st *sqlText) {
	st.add("? = ? + 1", bun.Ident(VersionColumn), bun.Ident(VersionColumn))
}

// Version answers the version of the row with key, or ErrNotFound. In a
// transaction it also locks the row until the transaction ends (PostgreSQL:
// FOR UPDATE; SQLite: the transaction already holds the only write lock), so
// that a write that first compares the version with the one a client read
// (If-Match) cannot be overtaken by another writer between the comparison
// and its own write: of two clients that read the same version and write,
// exactly one finds it unchanged.
func (c *Conn) Version(ctx context.Context, t *Table, org int64, key any) (int64, error) {
	if !t.Versioned {
		return 0, fmt.Errorf("storage: %s has no %s column", t.Name, VersionColumn)
	}
	keyArg, err := toSQL(t.Columns[t.Key], key, false)
	if err != nil {
		return 0, fmt.Errorf("storage: version of %s: key: %w", t.Name, err)
	}
	var st sqlText
	st.add("SELECT ? FROM ?", bun.Ident(VersionColumn), bun.Ident(t.Name))
	keyWhere(&st, t, org, keyArg)
	if c.InTx() {
		st.add(c.s.f.RowLock)
	}
	var v int64
	err = c.queryRow(ctx, &st, &v)
	if errors.Is(err, sql.ErrNoRows) { // pgx's ErrNoRows Is it too
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, c.s.mapError("version", t.Name, err)
	}
	return v, nil
}

// Touch adds one to the version of the row with key (and sets updated_at):
// the write of a change that lies outside the row's own columns, such as
// the members of a to-many relationship kept in a join table. ErrNotFound
// when no row of the organization has the key; a table that is not
// Versioned has nothing to count, and Touch does nothing.
func (c *Conn) Touch(ctx context.Context, t *Table, org int64, key any) error {
	if !t.Versioned {
		return nil
	}
	keyArg, err := toSQL(t.Columns[t.Key], key, false)
	if err != nil {
		return fmt.Errorf("storage: touch %s: key: %w", t.Name, err)
	}
	var st sqlText
	st.add("UPDATE ? SET ", bun.Ident(t.Name))
	bumpVersion(&st)
	if t.Columns[updatedColumn] == KindTime {
		st.add(", ? = ?", bun.Ident(updatedColumn), now())
	}
	keyWhere(&st, t, org, keyArg)
	return c.execOne(ctx, "update", t, &st)
}
