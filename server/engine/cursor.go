package engine

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// Cursors of cursor paging (page[after], page[before]: the JSON:API
// cursor-pagination profile). A cursor is the place of one record in a
// list's order: the values of its sort columns and its key, as a JSON array,
// followed by an HMAC-SHA256 of them (cut to 16 bytes), all in unpadded
// base64url. The MAC is keyed by the database's cursor key
// (storage.CursorKey) and covers the table and the order as well as the
// values, so a cursor that was altered, cut short, made up, or taken from
// another list or another sort is refused (400) rather than read as a place
// it never named. The filters are not covered: a client may narrow or widen
// a walk between pages, and the cursor still names a place in the order.
// The values are no secret: the MAC proves where they came from, it does
// not hide them.

// cursorMACBytes is how much of the HMAC a cursor carries: 128 bits, beyond
// any forging by trial.
const cursorMACBytes = 16

// maxCursorLength bounds a cursor parameter before it is decoded: the
// largest cursor the service hands out holds a few sort values.
const maxCursorLength = 2048

// errCursor is any cursor the service did not hand out for this list.
var errCursor = errors.New("the cursor is not one this list handed out, or it was altered")

// cursorCodec writes and checks cursors with one key.
type cursorCodec struct{ key []byte }

// cursorScope is what a cursor is bound to besides its values: the table and
// the whole order (storage.Ordering), directions included.
func cursorScope(t *storage.Table, order []storage.Order) []byte {
	var b strings.Builder
	b.WriteString(t.Name)
	for _, o := range order {
		b.WriteByte(0)
		if o.Desc {
			b.WriteByte('-')
		}
		b.WriteString(o.Column)
	}
	return []byte(b.String())
}

func (c cursorCodec) mac(scope, payload []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write(scope)
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)[:cursorMACBytes]
}

// encode is the cursor of row's place in order.
func (c cursorCodec) encode(t *storage.Table, order []storage.Order, row storage.Row) string {
	values := make([]any, len(order))
	for i, o := range order {
		values[i] = cursorValue(t.Columns[o.Column], row[o.Column])
	}
	payload, _ := json.Marshal(values) // strings, numbers, booleans and null only
	return base64.RawURLEncoding.EncodeToString(append(payload, c.mac(cursorScope(t, order), payload)...))
}

// decode checks a cursor against the list's table and order and returns the
// place it names, one value per column of order in the column's Kind.
func (c cursorCodec) decode(t *storage.Table, order []storage.Order, text string) ([]any, error) {
	if len(text) > maxCursorLength {
		return nil, errCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || len(raw) <= cursorMACBytes {
		return nil, errCursor
	}
	payload, sum := raw[:len(raw)-cursorMACBytes], raw[len(raw)-cursorMACBytes:]
	if !hmac.Equal(sum, c.mac(cursorScope(t, order), payload)) {
		return nil, errCursor
	}
	// Past the MAC the payload is one this service wrote; it is still read
	// with care, as a key could in principle have been shared by mistake.
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var values []any
	if err := dec.Decode(&values); err != nil || len(values) != len(order) {
		return nil, errCursor
	}
	for i, o := range order {
		v, err := fromCursorValue(t.Columns[o.Column], values[i])
		if err != nil {
			return nil, errCursor
		}
		values[i] = v
	}
	return values, nil
}

// cursorValue is a column value as a cursor's JSON holds it: times as text
// to the nanosecond, integers as numbers (JSON keeps all their digits).
func cursorValue(k storage.Kind, v any) any {
	switch x := v.(type) {
	case time.Time:
		if k == storage.KindDate {
			return x.UTC().Format(time.DateOnly)
		}
		return x.UTC().Format(time.RFC3339Nano)
	case json.RawMessage:
		return nil // never a sort column (seekable refuses JSON)
	}
	return v
}

// fromCursorValue reads a value of cursorValue back in its Kind's Go type.
func fromCursorValue(k storage.Kind, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch k {
	case storage.KindString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case storage.KindInt:
		if n, ok := v.(json.Number); ok {
			return n.Int64()
		}
	case storage.KindFloat:
		if n, ok := v.(json.Number); ok {
			f, err := n.Float64()
			if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f, nil
			}
		}
	case storage.KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case storage.KindTime:
		if s, ok := v.(string); ok {
			return time.Parse(time.RFC3339Nano, s)
		}
	case storage.KindDate:
		if s, ok := v.(string); ok {
			return time.Parse(time.DateOnly, s)
		}
	}
	return nil, fmt.Errorf("a cursor value %v is not of its column's kind", v)
}

// seekable reports the first column of order a cursor cannot hold a place
// in ("" when there is none): a JSON document has no order both databases
// agree on.
func seekable(t *storage.Table, order []storage.Order) string {
	for _, o := range order {
		if t.Columns[o.Column] == storage.KindJSON {
			return o.Column
		}
	}
	return ""
}
