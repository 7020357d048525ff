package engine

import (
	"net/url"
	"slices"
	"strings"
)

// pageLink is self followed by the request's query with page[number] set
// to number ("": left out), encoded as url.Values.Encode encodes it (keys
// sorted, each key and value escaped as url.QueryEscape escapes them), or
// self alone when that query is empty. pageLinks used to clone the query,
// set the number and call Encode for each link: about ten allocations a
// link, where this makes the string and, past sixteen keys, the key list.
func pageLink(self string, query url.Values, number string) string {
	const pageNumber = "page[number]"
	var stack [16]string
	keys := stack[:0]
	for k := range query {
		if k != pageNumber {
			keys = append(keys, k)
		}
	}
	if number != "" {
		keys = append(keys, pageNumber)
	}
	slices.Sort(keys)
	size := len(self) + 1
	for _, k := range keys {
		vs := query[k]
		if k == pageNumber {
			vs = []string{number}
		}
		for _, v := range vs {
			size += 2 + escapedLen(k) + escapedLen(v)
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(self)
	sep := byte('?')
	for _, k := range keys {
		vs := query[k]
		if k == pageNumber {
			vs = []string{number}
		}
		for _, v := range vs {
			b.WriteByte(sep)
			sep = '&'
			writeEscaped(&b, k)
			b.WriteByte('=')
			writeEscaped(&b, v)
		}
	}
	return b.String()
}

// unescaped tells whether url.QueryEscape leaves c as it is.
func unescaped(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// escapedLen is len(url.QueryEscape(s)).
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; !unescaped(c) && c != ' ' {
			n += 2
		}
	}
	return n
}

// writeEscaped writes url.QueryEscape(s) to b.
func writeEscaped(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unescaped(c):
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
