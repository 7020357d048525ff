package storage

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"github.com/entityapi/entityapi/storage/dialect"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// dateLayout is the text form of KindDate values on both databases.
const dateLayout = "2006-01-02"

// toSQL converts a value of the given kind into the Go value handed to Bun as
// an argument. Writes truncate times to whole seconds (what the API promises);
// conditions keep the fraction so that comparisons stay exact. nil (or a nil
// pointer) is NULL.
func toSQL(k Kind, v any, write bool) (any, error) {
	v = deref(v)
	if v == nil {
		return nil, nil
	}
	switch k {
	case KindString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case KindInt:
		rv := reflect.ValueOf(v)
		switch {
		case rv.CanInt():
			return rv.Int(), nil
		case rv.CanUint() && rv.Uint() <= 1<<63-1:
			return int64(rv.Uint()), nil
		}
	case KindFloat:
		rv := reflect.ValueOf(v)
		switch {
		case rv.CanFloat():
			return rv.Float(), nil
		case rv.CanInt():
			return float64(rv.Int()), nil
		}
	case KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case KindTime:
		if t, ok := v.(time.Time); ok {
			if write {
				t = t.Truncate(time.Second)
			}
			return t.UTC(), nil
		}
	case KindDate:
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(dateLayout), nil
		}
	case KindJSON:
		return jsonArg(v)
	}
	return nil, fmt.Errorf("value %v of type %T does not fit a %s column", v, v, kindName(k))
}

// jsonArg accepts raw JSON (json.RawMessage, []byte, string) or any value to
// marshal. The JSON literal null becomes SQL NULL, so nil reads back as nil.
func jsonArg(v any) (any, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	case string:
		raw = []byte(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("JSON value: %w", err)
		}
		raw = b
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("invalid JSON value %q", raw)
	}
	if strings.TrimSpace(string(raw)) == "null" {
		return nil, nil
	}
	return json.RawMessage(raw), nil
}

// deref follows pointers, so *string and friends are accepted; a nil pointer is nil.
func deref(v any) any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil
	}
	return rv.Interface()
}

// fromSQL normalizes a scanned value to the Go type of its kind. The drivers
// differ: SQLite hands back TEXT, INTEGER and REAL (and times only for some
// declared types), pgx typed values; both arrive here as the same types.
// A value that already has its kind's type is returned as it came, in the
// same interface, so that reading a row does not box every value again; v
// is the caller's own (database/sql copies the bytes it scans into an *any).
func fromSQL(k Kind, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch k {
	case KindString:
		switch x := v.(type) {
		case string:
			return v, nil
		case []byte:
			return string(x), nil
		}
	case KindInt:
		switch x := v.(type) {
		case int64:
			return v, nil
		case int32:
			return int64(x), nil
		case int16:
			return int64(x), nil
		case int:
			return int64(x), nil
		case string, []byte:
			return strconv.ParseInt(asString(x), 10, 64)
		}
	case KindFloat:
		switch x := v.(type) {
		case float64:
			return v, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string, []byte:
			return strconv.ParseFloat(asString(x), 64)
		}
	case KindBool:
		switch x := v.(type) {
		case bool:
			return v, nil
		case int64:
			return x != 0, nil
		case string, []byte:
			return strconv.ParseBool(asString(x))
		}
	case KindTime, KindDate:
		first := dialect.TextTime
		if k == KindDate {
			first = dateLayout
		}
		t, err := asTime(v, first)
		if err != nil {
			return nil, err
		}
		if k == KindDate {
			y, m, d := t.Date()
			t = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		} else {
			t = t.Truncate(time.Second)
		}
		if x, ok := v.(time.Time); ok && x == t {
			return v, nil // already in UTC, whole seconds (or midnight)
		}
		return t, nil
	case KindJSON:
		switch x := v.(type) {
		case json.RawMessage:
			return v, nil // pgx's own rows: see jsonTarget
		case []byte:
			// Scanning into an *any copies bytes already: x is the row's own.
			return json.RawMessage(x), nil
		case string:
			return json.RawMessage(x), nil
		}
	}
	// pgx's own rows hand over some types as pgtype values (a numeric as
	// pgtype.Numeric) where its database/sql driver gave their
	// driver.Value (a numeric's text): read that instead.
	if dv, ok := v.(driver.Valuer); ok {
		if x, err := dv.Value(); err == nil {
			if _, again := x.(driver.Valuer); !again {
				return fromSQL(k, x)
			}
		}
	}
	return nil, fmt.Errorf("cannot read %T as a %s value", v, kindName(k))
}

// timeLayouts are the text forms a time may have in SQLite: ours first, then
// what other writers (SQLite functions, drivers) produce, including every
// form the SQLite driver reads itself in a column declared as a time (Find
// reads those columns as text: see timeColumnText).
var timeLayouts = []string{
	dialect.TextTime,
	"2006-01-02 15:04:05.999999999-07:00",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	dateLayout,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999 -0700 MST",
}

// asTime reads a time in UTC from a time.Time or its text, trying the layout
// first before the others (a failed parse costs allocations).
func asTime(v any, first string) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), nil
	case string, []byte:
		s := asString(x)
		if t, err := time.Parse(first, s); err == nil {
			return t.UTC(), nil
		}
		if i := strings.Index(s, " m="); i > 0 {
			s = s[:i] // time.Time.String's monotonic clock reading
		}
		for _, layout := range timeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("cannot read %q as a time", s)
	}
	return time.Time{}, fmt.Errorf("cannot read %T as a time", v)
}

func asString(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v.(string)
}

// kindName names a Kind in messages.
func kindName(k Kind) string {
	switch k {
	case KindString:
		return "string"
	case KindInt:
		return "integer"
	case KindFloat:
		return "float"
	case KindBool:
		return "boolean"
	case KindTime:
		return "time"
	case KindDate:
		return "date"
	case KindJSON:
		return "JSON"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}
