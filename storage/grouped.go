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
	st.add("SELECT ?, ", bun.Ident(owner))
	s.keysArray(st, member)
}

// keysArray appends the aggregate gathering the column member of a group's
// rows into a JSON array, as groupedSelect describes.
func (s *Store) keysArray(st *sqlText, member string) {
	for i, piece := range s.f.KeysArray {
		if i > 0 {
			st.add("?", bun.Ident(member))
		}
		st.add(piece)
	}
}

// scanLinks reads the rows of a Linkage or Pairs statement into (member
// key, owner) pairs: grouped rows (see groupedSelect) when grouped, else one
// row per pair. It closes rows.
func (s *Store) scanLinks(rows rowSource, grouped bool, member, owner Kind, names [2]string, sizeHint int) ([][2]any, error) {
	if grouped {
		return scanGroups(rows, member, owner, names, sizeHint, s.f.OrderedKeysArray)
	}
	return scanPairs(rows, member, owner, names, sizeHint)
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
	i, err := openKeys(text)
	for err == nil && i >= 0 {
		var key any
		key, i, err = nextKey(text, i, k)
		if err == nil {
			out = append(out, [2]any{key, owner})
		}
	}
	return out, err
}

// appendKeys is decodeKeys for keys without an owner: it appends them to
// out, which it first grows by an estimate of their number.
func appendKeys(out []any, text string, k Kind) ([]any, error) {
	i, err := openKeys(text)
	if err == nil && i >= 0 {
		out = slices.Grow(out, strings.Count(text, ",")+1)
	}
	for err == nil && i >= 0 {
		var key any
		key, i, err = nextKey(text, i, k)
		if err == nil {
			out = append(out, key)
		}
	}
	return out, err
}

// openKeys checks the opening of a JSON array of keys and returns the
// index of its first key, or -1 when the array is empty.
func openKeys(text string) (int, error) {
	i := skipJSONSpace(text, 0)
	if i == len(text) || text[i] != '[' {
		return 0, errKeyArray
	}
	i = skipJSONSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		if skipJSONSpace(text, i+1) != len(text) {
			return 0, errKeyArray
		}
		return -1, nil
	}
	return i, nil
}

// nextKey reads the key of kind k at text[i:] and what follows it: it
// returns the key and the index of the next key, or -1 after the last.
func nextKey(text string, i int, k Kind) (any, int, error) {
	var key any
	switch {
	case k == KindInt:
		j := i
		for j < len(text) && (text[j] == '-' || '0' <= text[j] && text[j] <= '9') {
			j++
		}
		n, err := strconv.ParseInt(text[i:j], 10, 64)
		if err != nil {
			return nil, 0, errKeyArray
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
			return nil, 0, errKeyArray
		}
		if escaped {
			var s string
			if err := json.Unmarshal([]byte(text[i:j+1]), &s); err != nil {
				return nil, 0, errKeyArray
			}
			key = s
		} else {
			key = text[i+1 : j]
		}
		i = j + 1
	default:
		return nil, 0, errKeyArray
	}
	i = skipJSONSpace(text, i)
	if i == len(text) {
		return nil, 0, errKeyArray
	}
	switch text[i] {
	case ',':
		return key, skipJSONSpace(text, i+1), nil
	case ']':
		if skipJSONSpace(text, i+1) != len(text) {
			return nil, 0, errKeyArray
		}
		return key, -1, nil
	}
	return nil, 0, errKeyArray
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

// sortKeyList is sortKeys for keys without owners.
func sortKeyList(keys []any, k Kind) {
	byKey := func(a, b any) int { return strings.Compare(a.(string), b.(string)) }
	if k == KindInt {
		byKey = func(a, b any) int { return cmp.Compare(a.(int64), b.(int64)) }
	}
	if !slices.IsSortedFunc(keys, byKey) {
		slices.SortFunc(keys, byKey)
	}
}

func compareIntKeys(a, b [2]any) int { return cmp.Compare(a[0].(int64), b[0].(int64)) }

func compareStringKeys(a, b [2]any) int { return strings.Compare(a[0].(string), b[0].(string)) }
