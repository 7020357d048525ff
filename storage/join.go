package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Pairs returns the rows of j whose column col (j.Left or j.Right) holds one
// of keys, as (other column value, col value), ordered by col value then the
// other. It loads a to-many relationship through a join table for a whole
// page of owners in one query, as Linkage does for foreign keys.
func (c *Conn) Pairs(ctx context.Context, j *JoinTable, col string, keys []any) ([][2]any, error) {
	if j == nil {
		return nil, fmt.Errorf("storage: pairs: no join table")
	}
	k, ok := j.kind(col)
	if !ok {
		return nil, fmt.Errorf("storage: pairs %s: no column %q", j.Name, col)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	other := j.other(col)
	st, err := c.s.pairsStatement(j, col, k, keys)
	if err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, st)
	if err != nil {
		return nil, c.s.mapError("pairs", j.Name, err)
	}
	otherKind, _ := j.kind(other)
	out, err := c.s.scanLinks(rows, groupedKinds(otherKind), otherKind, k, [2]string{other, col}, rowsHint(len(keys)))
	if err != nil {
		return nil, c.s.mapError("pairs", j.Name, err)
	}
	return out, nil
}

// pairsStatement is Pairs' SELECT.
func (s *Store) pairsStatement(j *JoinTable, col string, k Kind, keys []any) (*sqlText, error) {
	other := j.other(col)
	otherKind, _ := j.kind(other)
	grouped := groupedKinds(otherKind)
	var st sqlText
	if grouped {
		s.groupedSelect(&st, col, other)
		st.add(" FROM ? WHERE ", bun.Ident(j.Name))
	} else {
		st.add("SELECT ?, ? FROM ? WHERE ", bun.Ident(other), bun.Ident(col), bun.Ident(j.Name))
	}
	if err := s.inList(&st, bun.Ident(col), k, keys, false); err != nil {
		return nil, fmt.Errorf("storage: pairs %s: %w", j.Name, err)
	}
	if grouped {
		st.add(" GROUP BY ? ORDER BY ?", bun.Ident(col), bun.Ident(col))
	} else {
		st.add(" ORDER BY ?, ?", bun.Ident(col), bun.Ident(other))
	}
	return &st, nil
}

// Link adds (left, right) pairs to j, all or none. Pairs already linked (or
// given twice) are not an error. A key that matches no row is a
// ForeignKeyError; whether both rows are visible to the caller is the
// caller's to check.
func (c *Conn) Link(ctx context.Context, j *JoinTable, pairs [][2]any) error {
	vals, err := pairValues(j, pairs)
	if err != nil {
		return fmt.Errorf("storage: link: %w", err)
	}
	if len(vals) == 0 {
		return nil
	}
	err = c.atomic(ctx, func(c *Conn) error {
		for start := 0; start < len(vals); start += insertChunk {
			var st sqlText
			st.add("INSERT INTO ? (?, ?) VALUES ", bun.Ident(j.Name), bun.Ident(j.Left), bun.Ident(j.Right))
			for i, p := range vals[start:min(start+insertChunk, len(vals))] {
				if i > 0 {
					st.add(", ")
				}
				st.add("(?, ?)", p[0], p[1])
			}
			st.add(" ON CONFLICT DO NOTHING")
			if _, err := c.exec(ctx, &st); err != nil {
				return err
			}
		}
		return nil
	})
	return c.s.mapError("link", j.Name, err)
}

// Unlink removes (left, right) pairs from j, all or none; pairs that are not
// linked are not an error.
func (c *Conn) Unlink(ctx context.Context, j *JoinTable, pairs [][2]any) error {
	vals, err := pairValues(j, pairs)
	if err != nil {
		return fmt.Errorf("storage: unlink: %w", err)
	}
	if len(vals) == 0 {
		return nil
	}
	left, right := bun.Ident(j.Left), bun.Ident(j.Right)
	err = c.atomic(ctx, func(c *Conn) error {
		for start := 0; start < len(vals); start += insertChunk {
			var st sqlText
			st.add("DELETE FROM ? WHERE ", bun.Ident(j.Name))
			for i, p := range vals[start:min(start+insertChunk, len(vals))] {
				if i > 0 {
					st.add(" OR ")
				}
				st.add("(? = ? AND ? = ?)", left, p[0], right, p[1])
			}
			if _, err := c.exec(ctx, &st); err != nil {
				return err
			}
		}
		return nil
	})
	return c.s.mapError("unlink", j.Name, err)
}

// UnlinkAll removes every pair of j whose column col (j.Left or j.Right)
// holds key, such as all contacts of one account before it gets new ones.
func (c *Conn) UnlinkAll(ctx context.Context, j *JoinTable, col string, key any) error {
	if j == nil {
		return fmt.Errorf("storage: unlink: no join table")
	}
	k, ok := j.kind(col)
	if !ok {
		return fmt.Errorf("storage: unlink %s: no column %q", j.Name, col)
	}
	a, err := toSQL(k, key, false)
	if err != nil {
		return fmt.Errorf("storage: unlink %s: %s: %w", j.Name, col, err)
	}
	if a == nil {
		return fmt.Errorf("storage: unlink %s: %s: NULL is no key", j.Name, col)
	}
	err = c.atomic(ctx, func(c *Conn) error {
		var st sqlText
		st.add("DELETE FROM ? WHERE ? = ?", bun.Ident(j.Name), bun.Ident(col), a)
		_, err := c.exec(ctx, &st)
		return err
	})
	return c.s.mapError("unlink", j.Name, err)
}

// pairValues converts (left, right) pairs to SQL arguments; NULL is no key.
func pairValues(j *JoinTable, pairs [][2]any) ([][2]any, error) {
	if j == nil {
		return nil, fmt.Errorf("no join table")
	}
	out := make([][2]any, len(pairs))
	for i, p := range pairs {
		for side, k := range []Kind{j.LeftKind, j.RightKind} {
			a, err := toSQL(k, p[side], true)
			if err != nil {
				return nil, fmt.Errorf("%s: pair %d: %w", j.Name, i, err)
			}
			if a == nil {
				return nil, fmt.Errorf("%s: pair %d: NULL is no key", j.Name, i)
			}
			out[i][side] = a
		}
	}
	return out, nil
}
