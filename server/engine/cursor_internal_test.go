package engine

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

var cursorTable = &storage.Table{Name: "things", Key: "id", Columns: map[string]storage.Kind{
	"id": storage.KindInt, "name": storage.KindString, "price": storage.KindFloat, "active": storage.KindBool,
	"seen_at": storage.KindTime, "born_on": storage.KindDate, "extra": storage.KindJSON,
}}

// TestCursorRoundTrip: a cursor gives back the place it was made of, in
// every kind of column, NULLs included; and the same place under another
// key, table or order is refused, as is any change to its text.
func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	codec := cursorCodec{key: []byte("0123456789abcdef0123456789abcdef")}
	order := storage.Ordering(cursorTable, []storage.Order{{Column: "name", Desc: true}, {Column: "price"}, {Column: "active"},
		{Column: "seen_at", Desc: true}, {Column: "born_on"}})
	row := storage.Row{"id": int64(1<<62 + 3), "name": "Zoë \"quoted\"", "price": 12.5, "active": true,
		"seen_at": time.Date(2026, 11, 25, 10, 0, 1, 0, time.UTC), "born_on": time.Date(1999, 2, 3, 0, 0, 0, 0, time.UTC)}
	text := codec.encode(cursorTable, order, row)
	got, err := codec.decode(cursorTable, order, text)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range order {
		if g, w := got[i], row[o.Column]; g != w && !(isTime(g) && g.(time.Time).Equal(w.(time.Time))) {
			t.Errorf("%s: %v (%T), want %v (%T)", o.Column, g, g, w, w)
		}
	}
	nulls := storage.Row{"id": int64(7)}
	if got, err := codec.decode(cursorTable, order, codec.encode(cursorTable, order, nulls)); err != nil || !slices.Equal(got[:5], make([]any, 5)) || got[5] != int64(7) {
		t.Errorf("a place of NULLs: %v, %v", got, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(text)
	forged, _ := json.Marshal([]any{"A", 1, true, nil, nil, 1})
	refused := map[string]func() ([]any, error){
		"another key": func() ([]any, error) {
			return cursorCodec{key: []byte("another key")}.decode(cursorTable, order, text)
		},
		"another order": func() ([]any, error) {
			o := slices.Clone(order)
			o[0].Desc = false
			return codec.decode(cursorTable, o, text)
		},
		"another table": func() ([]any, error) {
			other := *cursorTable
			other.Name = "others"
			return codec.decode(&other, order, text)
		},
		"one byte changed": func() ([]any, error) {
			b := slices.Clone(raw)
			b[3] ^= 0x20
			return codec.decode(cursorTable, order, base64.RawURLEncoding.EncodeToString(b))
		},
		"cut short": func() ([]any, error) { return codec.decode(cursorTable, order, text[:len(text)-1]) },
		"padded":    func() ([]any, error) { return codec.decode(cursorTable, order, text+"==") },
		"empty MAC": func() ([]any, error) {
			return codec.decode(cursorTable, order, base64.RawURLEncoding.EncodeToString(forged))
		},
		"not base64": func() ([]any, error) { return codec.decode(cursorTable, order, "*&^") },
		"very long": func() ([]any, error) {
			return codec.decode(cursorTable, order, string(make([]byte, maxCursorLength+1)))
		},
		"only a MAC": func() ([]any, error) {
			return codec.decode(cursorTable, order, base64.RawURLEncoding.EncodeToString(raw[len(raw)-16:]))
		},
	}
	for name, decode := range refused {
		if v, err := decode(); err == nil {
			t.Errorf("%s: accepted as %v", name, v)
		}
	}
}

func isTime(v any) bool { _, ok := v.(time.Time); return ok }

// TestCursorSortUnsupported: a sort a cursor cannot hold a place in is a
// 400 of the profile's unsupported-sort type; paging it by number is not.
func TestCursorSortUnsupported(t *testing.T) {
	t.Parallel()
	e := &Engine{cursors: cursorCodec{key: []byte("k")}}
	q := url.Values{"page[after]": {""}}
	_, errs := e.parseCursor(q, cursorTable, []storage.Order{{Column: "extra"}}, "", 10)
	if len(errs) != 1 || errs[0].Code != "unsupported-sort" || errs[0].Parameter != "sort" ||
		errs[0].About != "https://jsonapi.org/profiles/ethanresnick/cursor-pagination/unsupported-sort" ||
		errs[0].Type != errs[0].About || errs[0].Kind != problem.Invalid {
		t.Errorf("sorted by JSON: %v", errs)
	}
	if c, errs := e.parseCursor(url.Values{}, cursorTable, []storage.Order{{Column: "extra"}}, "", 10); c != nil || errs != nil {
		t.Errorf("paged by number: %v, %v", c, errs)
	}
}
