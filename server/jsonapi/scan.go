package jsonapi

import "bytes"

// The scanners below walk JSON that has already been checked to be valid
// (json.Valid, or a decoder's pass), to find members without decoding
// through reflection: WithoutAtMembers here, the batch splitter's items in
// server/batch/split. On valid JSON they return the offset after what they
// skip; on anything else they stop early (at most len(b)) and never panic.

// IsSpace tells whether c is JSON's insignificant white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the offset of the first byte at or after b[i] that is
// not white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the offset after the string starting at b[i] == '"':
// the next quote not escaped by an odd run of backslashes.
func SkipString(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		bs := 0 // backslashes right before the quote
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			bs++
		}
		i++
		if bs%2 == 0 {
			return i
		}
	}
	return len(b)
}

// SkipValue returns the offset after the value starting at b[i]: strings
// are followed to know which brackets nest.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !IsSpace(b[i]) {
		i++
	}
	return i
}
