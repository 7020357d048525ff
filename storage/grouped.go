package storage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// The to-many linkage of a page (a country's 57 regions, the accounts of 50
// contacts) used to come back as one row per member. Each row is a trip
// through database/sql and the driver, and on SQLite every column read takes
// the connection's mutex: for a country that was a third of a GET's time.
// Linkage and Pairs therefore ask the database for one row per owner, its
// members' keys gathered into a JSON array in key order (json_group_array
// on SQLite, json_agg on PostgreSQL), and read the array here. The result is
// the same pairs, in the same order, as row by row.

// groupedKinds are the key kinds whose JSON arrays decodeKeys reads: every
// key and reference column is one of them. Others are read row by row.
func groupedKinds(k Kind) bool { return k == KindInt || k == KindString }

// groupedSelect appends "SELECT owner, <array of member keys>". On
// PostgreSQL the array is in key order (ORDER BY in the aggregate: text keys
// follow the database's collation, as a row-by-row ORDER BY did). On SQLite
// the same ORDER BY costs a sort per group that took a GET of a country from
// 27 to 46 us, so the array comes in whatever order SQLite met the rows, and
// scanGroups puts it in order: SQLite compares our TEXT columns bytewise
// (BINARY, no column declares another collation), as Go compares strings.
func (s *Store) groupedSelect(st *sqlText, owner, member string) {
	if s.sqlite() {
		st.add("SELECT ?, json_group_array(?)", bun.Ident(owner), bun.Ident(member))
		return
	}
	st.add("SELECT ?, json_agg(? ORDER BY ?)", bun.Ident(owner), bun.Ident(member), bun.Ident(member))
}

// scanGroupsFor returns the scan of s's grouped statements: see groupedSelect.
func (s *Store) scanGroupsFor() func(rowSource, Kind, Kind, [2]string, int) ([][2]any, error) {
	ordered := !s.sqlite()
	return func(rows rowSource, member, owner Kind, names [2]string, sizeHint int) ([][2]any, error) {
		return scanGroups(rows, member, owner, names, sizeHint, ordered)
	}
}

// scanGroups reads the (owner, JSON array of member keys) rows of a grouped
// statement into (member key, owner) pairs, and closes rows. names are the
// member and owner columns, for errors; sizeHint is as for scanRows. Unless
// the arrays come ordered, each owner's keys are sorted.
func scanGroups(rows rowSource, member, owner Kind, names [2]string, sizeHint int, ordered bool) ([][2]any, error) {
	defer rows.Close()
	// The array is read into a string (database/sql hands over SQLite's
	// string as it is, and copies PostgreSQL's bytes once): the keys are
	// cut from it.
	var rawOwner any
	var rawKeys string
	dest := [2]any{rows.target(owner, &rawOwner), &rawKeys} // once: Scan through pgx.Rows, an interface, puts its arguments on the heap
	out := make([][2]any, 0, sizeHint)
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return nil, err
		}
		o, err := fromSQL(owner, rawOwner)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", names[1], err)
		}
		start := len(out)
		if out, err = decodeKeys(out, rawKeys, member, o); err != nil {
			return nil, fmt.Errorf("column %s: %w", names[0], err)
		}
		if !ordered {
			sortKeys(out[start:], member)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

var errKeyArray = errors.New("not a JSON array of keys")

// decodeKeys appends (key, owner) for each key of the JSON array text, as
// the databases write it: integers, or strings with JSON escapes. Plain
// strings are cut from text without copying; one with an escape goes
// through encoding/json.
func decodeKeys(out [][2]any, text string, k Kind, owner any) ([][2]any, error) {
	i := skipJSONSpace(text, 0)
	if i == len(text) || text[i] != '[' {
		return nil, errKeyArray
	}
	i = skipJSONSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return out, nil
	}
	for {
		var key any
		switch {
		case k == KindInt:
			j := i
			for j < len(text) && (text[j] == '-' || '0' <= text[j] && text[j] <= '9') {
				j++
			}
			n, err := strconv.ParseInt(text[i:j], 10, 64)
			if err != nil {
				return nil, errKeyArray
			}
			key, i = n, j
		case k == KindString && i < len(text) && text[i] == '"':
			j, escaped := i+1, false
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(text) {
				return nil, errKeyArray
			}
			if escaped {
				var s string
				if err := json.Unmarshal([]byte(text[i:j+1]), &s); err != nil {
					return nil, errKeyArray
				}
				key = s
			} else {
				key = text[i+1 : j]
			}
			i = j + 1
		default:
			return nil, errKeyArray
		}
		out = append(out, [2]any{key, owner})
		i = skipJSONSpace(text, i)
		if i == len(text) {
			return nil, errKeyArray
		}
		switch text[i] {
		case ',':
			i = skipJSONSpace(text, i+1)
		case ']':
			if skipJSONSpace(text, i+1) != len(text) {
				return nil, errKeyArray
			}
			return out, nil
		default:
			return nil, errKeyArray
		}
	}
}

// skipJSONSpace returns the index of the first byte at or after i of text
// that is not JSON white space.
func skipJSONSpace(text string, i int) int {
	for i < len(text) {
		switch text[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// sortKeys puts pairs in the order of their keys (int64s, or strings
// compared bytewise), checking first: the arrays mostly come in order.
func sortKeys(pairs [][2]any, k Kind) {
	byKey := compareStringKeys
	if k == KindInt {
		byKey = compareIntKeys
	}
	if !slices.IsSortedFunc(pairs, byKey) {
		slices.SortFunc(pairs, byKey)
	}
}

func compareIntKeys(a, b [2]any) int { return cmp.Compare(a[0].(int64), b[0].(int64)) }

func compareStringKeys(a, b [2]any) int { return strings.Compare(a[0].(string), b[0].(string)) }
