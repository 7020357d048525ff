package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// maxSearchWords bounds the words of one search: each is a lookup in the
// full-text index.
const maxSearchWords = 32

// parseSearchText reads filter[searchText] (the full-text filter of the
// lists of resources that declare x-entityapi search; docs/queries.md,
// "Search"), given as key, as web search engines (and
// PostgreSQL's websearch_to_tsquery) read a search: words, all of which must
// be found; a "phrase in quotes", its words in order; OR between two words
// or phrases, either of them; -word or -"phrase", not found. A word is a run
// of letters and digits; everything else separates words, so a token such as
// ACME-001 is the phrase "acme 001" and nothing a client writes is an
// operator of the database's own query language. Both databases get the
// same reading (storage.Search).
func parseSearchText(key, raw string) (storage.Search, *problem.Problem) {
	var q storage.Search
	if p := checkLength(key, raw); p != nil {
		return q, p
	}
	words, orNext := 0, false
	for rest := raw; ; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		not := false
		if rest[0] == '-' && len(rest) > 1 && !startsWithSpace(rest[1:]) {
			not, rest = true, rest[1:]
		}
		var token string
		quoted := rest[0] == '"'
		if quoted {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				token, rest = rest[1:], "" // an unclosed quote runs to the end
			} else {
				token, rest = rest[1:1+end], rest[2+end:]
			}
		} else {
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			token, rest = rest[:end], rest[end:]
		}
		if !quoted && !not && token == "OR" {
			orNext = len(q.All) > 0
			continue
		}
		phrase := searchWords(token)
		if phrase == "" {
			continue
		}
		words += strings.Count(phrase, " ") + 1
		switch {
		case not:
			q.Not = append(q.Not, phrase)
		case orNext:
			last := len(q.All) - 1
			q.All[last] = append(q.All[last], phrase)
		default:
			q.All = append(q.All, []string{phrase})
		}
		orNext = false
	}
	switch {
	case words > maxSearchWords:
		return q, problem.Filter(key, fmt.Sprintf("The search has %d words; at most %d are allowed.", words, maxSearchWords))
	case words == 0:
		return q, problem.Filter(key, "The search has no word to find: give at least one word of letters or digits.")
	}
	return q, nil
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// searchWords is the words of token (runs of letters and digits, the marks
// that go with letters included), lower-cased and separated by one space.
func searchWords(token string) string {
	var b strings.Builder
	inWord := false
	for _, r := range token {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if !inWord && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			inWord = true
			continue
		}
		inWord = false
	}
	return b.String()
}
