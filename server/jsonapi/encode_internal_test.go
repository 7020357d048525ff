package jsonapi

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendStringBodyBytewise is appendStringBody without plain8's word
// steps: every byte tested alone.
func appendStringBodyBytewise(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
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

// TestPlain8EveryByte puts every byte value at every position of an
// otherwise plain word: plain8 must refuse exactly those appendStringBody
// does not copy as they are.
func TestPlain8EveryByte(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		for pos := range 8 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			x := uint64(0)
			for i, c := range w {
				x |= uint64(c) << (8 * i)
			}
			if got := plain8(x); got != want {
				t.Errorf("byte %#x at %d: plain8 %v", c, pos, got)
			}
		}
	}
}

func TestAppendStringBodyAsBytewise(t *testing.T) {
	alphabet := []string{"a", "Z", "0", " ", "/", "~", "\x7f", "\"", "\\", "\n", "\x00", "\x1f", "é", "€", "\u2028", "\u2029", "\xff", "\xe2\x82", "😀"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(40) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := sb.String()
		got, want := string(appendStringBody(nil, s)), string(appendStringBodyBytewise(nil, s))
		if got != want {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
		if !json.Valid([]byte(`"` + got + `"`)) {
			t.Fatalf("%q: %q is no JSON string", s, got)
		}
	}
}

func FuzzAppendStringBody(f *testing.F) {
	f.Add("http://127.0.0.1:8080/admin/api/regions/US-NY")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendStringBody(nil, s)), string(appendStringBodyBytewise(nil, s)); got != want {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}

func BenchmarkAppendStringBody(b *testing.B) {
	s := "http://127.0.0.1:8080/admin/api/regions"
	buf := make([]byte, 0, 256)
	b.Run("words", func(b *testing.B) {
		for b.Loop() {
			buf = appendStringBody(buf[:0], s)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		for b.Loop() {
			buf = appendStringBodyBytewise(buf[:0], s)
		}
	})
}
