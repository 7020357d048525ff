package jsonapi

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendObject appends members as a JSON object, in order.
func AppendObject(b []byte, members []Member) []byte {
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, m.Name)
		b = append(b, ':')
		b = AppendValue(b, m.Value)
	}
	return append(b, '}')
}

// AppendObjects appends a JSON array of objects: the plain format's list body.
func AppendObjects(b []byte, objects [][]Member) []byte {
	return appendArray(b, objects, AppendObject)
}

// appendArray appends a JSON array of items, each appended by appendItem.
func appendArray[T any](b []byte, items []T, appendItem func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, item)
	}
	return append(b, ']')
}

// DateTimeLayout is the wire format of a date-time (docs/decisions.md §3): UTC,
// whole seconds.
const DateTimeLayout = "2006-01-02T15:04:05Z"

// AppendValue appends one value. The engine hands over strings, integers, floats,
// booleans, nil, raw JSON, lists, member lists and date-times (a time.Time,
// written in DateTimeLayout: the storage value goes through as it was read,
// not as a string made for it); anything else goes through encoding/json.
func AppendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return AppendString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case bool:
		return strconv.AppendBool(b, x)
	case time.Time:
		b = append(b, '"')
		b = x.UTC().AppendFormat(b, DateTimeLayout)
		return append(b, '"')
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case json.RawMessage:
		if len(x) == 0 {
			return append(b, "null"...)
		}
		return append(b, x...)
	case []Member:
		return AppendObject(b, x)
	case []any:
		return appendArray(b, x, AppendValue)
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, raw...)
	}
}

const hex = "0123456789abcdef"

// Masks of plain8: a byte repeated in every byte of a word.
const (
	ones    = 0x0101010101010101
	highs   = 0x8080808080808080
	spaces  = 0x20 * ones
	quotes  = '"' * ones
	slashes = '\\' * ones
)

// plain8 tells whether the eight bytes of x (a string's, little-endian)
// are all ASCII that appendStringBody copies as they are: none below 0x20,
// none a quote or a backslash, none 0x80 or above. It tests them at once,
// with the exact "has a byte below n" test (x-n*ones) & ^x & highs, which
// never misses one (it may be wrong only about which byte).
func plain8(x uint64) bool {
	q, bs := x^quotes, x^slashes // a quote, a backslash: a zero byte there
	return ((x-spaces)&^x|(q-ones)&^q|(bs-ones)&^bs|x)&highs == 0
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so the output is always valid JSON.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendStringBody(b, s)
	return append(b, '"')
}

// appendStringBody appends s escaped as inside a JSON string, without the
// quotes: a string written in parts (a link from its resource's address) is
// the same bytes as the parts joined, since every character is escaped alone.
func appendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) { // most text: eight bytes at a time
			if w := s[i : i+8]; plain8(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56) {
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
