package engine

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/entityapi/entityapi/server/problem"
)

// readQuery reads the whole query string of a request and answers the first
// part it cannot read, naming the parameter where it can (docs/decisions.md §3).
//
// Go's url.ParseQuery, behind URL.Query(), Gin's c.Query, kin-openapi's
// parameter checks and the generated parameter binding, skips a pair that
// holds a raw ';' or a malformed escape and goes on: `sort=name;x` would be
// served unsorted and `filter[id]=1;x` unfiltered, a silently different
// request. Checking the raw query once, before any of them reads it, makes
// every later reading whole. A value must also be UTF-8 (the invalid bytes
// would reach SQL as U+FFFD, another silently different request) without NUL,
// which no column can hold and which Bun refuses to write into SQL.
func ReadQuery(raw string) *problem.Problem {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil || strings.Contains(rawKey, ";") || !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
			return problem.BadQuery(fmt.Sprintf("The query string cannot be read: the parameter name %q is not valid (a raw ';', a malformed escape, or a character that is not text).", rawKey))
		}
		value, err := url.QueryUnescape(rawValue)
		var detail string
		switch {
		case strings.Contains(rawValue, ";"):
			detail = "The value holds a raw ';'; send it encoded as %3B."
		case err != nil:
			detail = "The value holds a malformed escape: '%' must be followed by two hexadecimal digits (send '%' itself as %25)."
		case !utf8.ValidString(value):
			detail = "The value is not valid UTF-8 text."
		case strings.IndexByte(value, 0) >= 0:
			detail = "The value holds a NUL character (%00), which no field can hold."
		default:
			continue
		}
		if key == "sort" {
			return problem.Sort(detail)
		}
		return problem.Filter(key, detail)
	}
	return nil
}
