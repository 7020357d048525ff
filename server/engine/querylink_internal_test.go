package engine

import (
	"maps"
	"net/url"
	"strconv"
	"testing"
)

// pageLinkOld is what pageLinks wrote before pageLink: the query cloned,
// page[number] set (or removed) and encoded by url.Values.Encode.
func pageLinkOld(self string, query url.Values, number string) string {
	q := maps.Clone(query)
	q.Del("page[number]")
	if number != "" {
		q.Set("page[number]", number)
	}
	if enc := q.Encode(); enc != "" {
		return self + "?" + enc
	}
	return self
}

func TestPageLinkAsEncode(t *testing.T) {
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	many := url.Values{}
	for i := range 40 {
		many.Set("filter[f"+strconv.Itoa(i)+"]", strconv.Itoa(i))
	}
	for _, raw := range []string{
		"", "page[size]=10", "page[number]=3&page[size]=10", "page[number]=3",
		"sort=-createdAt,lastName&filter[lastName][starts_with]=L&page[size]=20",
		"a=1&a=2&b=&c=x+y&d=%25%26%3D%E2%82%AC&e=~._-&f=%00%FF",
		"include=accounts,owner&fields[contacts]=firstName&page[number]=&z",
	} {
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, number := range []string{"", "1", "2", "17"} {
			if got, want := pageLink("http://h/api/x", q, number), pageLinkOld("http://h/api/x", q, number); got != want {
				t.Errorf("%q, page %q: %q, want %q", raw, number, got, want)
			}
		}
	}
	for _, q := range []url.Values{many, {string(every): {string(every), ""}}} {
		for _, number := range []string{"", "5"} {
			if got, want := pageLink("/x", q, number), pageLinkOld("/x", q, number); got != want {
				t.Errorf("page %q: %q, want %q", number, got, want)
			}
		}
	}
}

func FuzzPageLink(f *testing.F) {
	f.Add("page[size]=10&sort=a", "2")
	f.Fuzz(func(t *testing.T, raw, number string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if got, want := pageLink("/x", q, number), pageLinkOld("/x", q, number); got != want {
			t.Errorf("%q, page %q: %q, want %q", raw, number, got, want)
		}
	})
}
