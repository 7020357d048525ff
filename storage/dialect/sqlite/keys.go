package sqlite

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/entityapi/entityapi/storage/dialect"
)

// SQLite has no array parameter: a list of values travels as one JSON array
// read with json_each (Features.JSONList), so that a statement's text does
// not depend on how many values there are. A list of marks would make each
// length its own statement, parsed and prepared anew (a 5,000-key filter
// spent a third of its time there) and crowding the prepared cache.
const (
	// anyOf and noneOf are the conditions that ? is (is not) one of the
	// values of the JSON array ?.
	anyOf  = "? IN (SELECT value FROM json_each(?))"
	noneOf = "? NOT IN (SELECT value FROM json_each(?))"
	// keysIn follows "IN" or "NOT IN": the related rows are looked up key by
	// key from the JSON array (CROSS JOIN keeps that order), rather than
	// through an IN (SELECT ... json_each) that SQLite copies into a
	// temporary index first (a tenth of a 5,000-key filter).
	keysIn = "IN (SELECT ?.? FROM json_each(?) AS k CROSS JOIN ? AS ? ON ?.? = k.value WHERE ?.? IS NOT NULL ORDER BY ?.?)"
)

// jsonList is vals as the text of one JSON array, and whether they all fit
// one: all integers or all text. Integers become JSON numbers; text (times
// in dialect.TextTime, JSON and bytes as text, as the store binds them)
// becomes JSON strings that json_each gives back unchanged. Floats,
// booleans, text that is not UTF-8 or holds NUL, and a mix of integers and
// text do not fit.
func jsonList(vals []any) (string, bool) {
	b := make([]byte, 0, 2+8*len(vals))
	b = append(b, '[')
	var ints, texts bool
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		switch x := textParam(v).(type) {
		case int64:
			ints = true
			b = strconv.AppendInt(b, x, 10)
		case string:
			if !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 {
				return "", false
			}
			texts = true
			q, err := json.Marshal(x)
			if err != nil {
				return "", false
			}
			b = append(b, q...)
		default:
			return "", false
		}
	}
	if ints && texts {
		return "", false
	}
	return string(append(b, ']')), true
}

// textParam is v as the store binds it on SQLite (Features.TextValues):
// times in dialect.TextTime, JSON and bytes as text.
func textParam(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(dialect.TextTime)
	case json.RawMessage:
		return string(x)
	case []byte:
		return string(x)
	}
	return v
}
